import { actorOf } from "@/lib/audit/record";
import { handle } from "@/lib/http/handler";
import { deleteWidgetEndpoint, getWidgetEndpoint, updateWidgetEndpoint } from "@/lib/widgets/api";
import { deleteWidget, getWidget, updateWidget, widgetObject } from "@/lib/widgets/service";

// GET /v1/widgets/{widget}
export const GET = handle(getWidgetEndpoint, async ({ principal, params }) => ({
  data: await widgetObject(await getWidget(principal.organizationId, params.widget)),
}));

// PATCH /v1/widgets/{widget} — only the fields sent change
export const PATCH = handle(updateWidgetEndpoint, async ({ principal, params, body }) => ({
  data: await widgetObject(await updateWidget(principal.organizationId, params.widget, body, actorOf(principal))),
}));

// DELETE /v1/widgets/{widget} — the widget and its conversations
export const DELETE = handle(deleteWidgetEndpoint, async ({ principal, params }) => {
  await deleteWidget(principal.organizationId, params.widget, actorOf(principal));
  return { data: { id: params.widget, deleted: true as const } };
});
