import { handle } from "@/lib/http/handler";
import { getRunEndpoint, serializeRun } from "@/lib/runs/api";
import { getRun } from "@/lib/runs/service";

// GET /v1/runs/{run} — one run
export const GET = handle(getRunEndpoint, async ({ principal, params }) => ({
  data: serializeRun(await getRun(principal.organizationId, params.run)),
}));
