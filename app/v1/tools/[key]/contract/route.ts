import { getContractEndpoint } from "@/lib/contracts/api";
import { getToolContract } from "@/lib/contracts/service";
import { handle } from "@/lib/http/handler";

// GET /v1/tools/{key}/contract — a tool's contract (current version or ?version=N) and its version history
export const GET = handle(getContractEndpoint, async ({ principal, params, query }) => ({
  data: await getToolContract(principal.organizationId, params.key, query.version),
}));
