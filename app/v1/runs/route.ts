import { handle } from "@/lib/http/handler";
import { page } from "@/lib/http/validation";
import { createRunEndpoint, listRunsEndpoint, serializeRun } from "@/lib/runs/api";
import { createRun, listRuns } from "@/lib/runs/service";

// GET /v1/runs — list runs, newest first
export const GET = handle(listRunsEndpoint, async ({ principal, query }) => page(await listRuns(principal.organizationId, query), query.limit, serializeRun));

// POST /v1/runs — start a run of an agent, its capability set frozen
export const POST = handle(createRunEndpoint, async ({ principal, body }) => {
  const { run, warnings } = await createRun(principal, body);
  return { data: serializeRun(run), warnings };
});
