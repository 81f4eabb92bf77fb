import { actorOf } from "@/lib/audit/record";
import { handle } from "@/lib/http/handler";
import { rotateWidgetSecretEndpoint } from "@/lib/widgets/api";
import { rotateSigningSecret, widgetObject } from "@/lib/widgets/service";

// POST /v1/widgets/{widget}/rotate_signing_secret — a new secret, shown once
export const POST = handle(rotateWidgetSecretEndpoint, async ({ principal, params }) => {
  const { widget, secret } = await rotateSigningSecret(principal.organizationId, params.widget, actorOf(principal));
  return { data: { ...(await widgetObject(widget)), signing_secret: secret } };
});
