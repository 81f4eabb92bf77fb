import { actorOf } from "@/lib/audit/record";
import { handle } from "@/lib/http/handler";
import { page } from "@/lib/http/validation";
import { createWidgetEndpoint, listWidgetsEndpoint } from "@/lib/widgets/api";
import { createWidget, listWidgets, widgetObject } from "@/lib/widgets/service";

// GET /v1/widgets — list widgets, newest first
export const GET = handle(listWidgetsEndpoint, async ({ principal, query }) => {
  const rows = await listWidgets(principal.organizationId, query);
  const listed = page(rows, query.limit, (row) => row);
  return { data: await Promise.all(listed.data.map((row) => widgetObject(row))), next_cursor: listed.next_cursor };
});

// POST /v1/widgets — create a widget; its signing secret is shown once
export const POST = handle(createWidgetEndpoint, async ({ principal, body }) => {
  const { widget, secret } = await createWidget(principal.organizationId, body, actorOf(principal));
  return { data: { ...(await widgetObject(widget)), signing_secret: secret } };
});
