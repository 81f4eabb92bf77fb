import { listPolicyVersionsEndpoint, serializePolicy } from "@/lib/policies/api";
import { listPolicyVersions } from "@/lib/policies/service";
import { handle } from "@/lib/http/handler";
import { page } from "@/lib/http/validation";

// GET /v1/policies/versions — every published version, newest first
export const GET = handle(listPolicyVersionsEndpoint, async ({ principal, query }) =>
  page(await listPolicyVersions(principal.organizationId, query), query.limit, serializePolicy),
);
