import { actorOf } from "@/lib/audit/record";
import { handle } from "@/lib/http/handler";
import { rotateWidgetPublicKeyEndpoint } from "@/lib/widgets/api";
import { rotatePublicKey, widgetObject } from "@/lib/widgets/service";

// POST /v1/widgets/{widget}/rotate_public_key — the old key stops working at once
export const POST = handle(rotateWidgetPublicKeyEndpoint, async ({ principal, params }) => ({
  data: await widgetObject(await rotatePublicKey(principal.organizationId, params.widget, actorOf(principal))),
}));
