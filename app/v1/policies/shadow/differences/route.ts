import { listShadowDifferencesEndpoint, serializeShadowDifference } from "@/lib/policies/api";
import { shadowDifferences } from "@/lib/policies/shadow";
import { handle } from "@/lib/http/handler";
import { page } from "@/lib/http/validation";

// GET /v1/policies/shadow/differences — what the shadow table would have decided otherwise
export const GET = handle(listShadowDifferencesEndpoint, async ({ principal, query }) => {
  const { rows, counts } = await shadowDifferences(principal.organizationId, query);
  return { ...page(rows, query.limit, serializeShadowDifference), counts };
});
