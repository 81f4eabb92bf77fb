import { getPolicyVersionEndpoint, serializePolicy } from "@/lib/policies/api";
import { getPolicyVersion } from "@/lib/policies/service";
import { handle } from "@/lib/http/handler";

// GET /v1/policies/versions/{version} — one published version
export const GET = handle(getPolicyVersionEndpoint, async ({ principal, params }) => ({
  data: serializePolicy(await getPolicyVersion(principal.organizationId, params.version)),
}));
