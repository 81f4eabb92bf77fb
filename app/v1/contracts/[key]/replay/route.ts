import { handle } from "@/lib/http/handler";
import { replayContractEndpoint } from "@/lib/traces/api";
import { replayContractVersion } from "@/lib/traces/replay";

// POST /v1/contracts/{key}/replay — recorded calls of a tool against one contract version (validation only)
export const POST = handle(replayContractEndpoint, async ({ principal, params, body }) => ({
  data: await replayContractVersion(principal.organizationId, params.key, body.version),
}));
