import { handle } from "@/lib/http/handler";
import { page } from "@/lib/http/validation";
import { startManagedRun } from "@/lib/agent-loop/start";
import { createRunEndpoint, listRunsEndpoint, serializeRun } from "@/lib/runs/api";
import { createRun, listRuns } from "@/lib/runs/service";

// GET /v1/runs — list runs, newest first
export const GET = handle(listRunsEndpoint, async ({ principal, query }) =>
  page(await listRuns(principal.organizationId, query), query.limit, serializeRun),
);

// POST /v1/runs — start a run of an agent, its capability set frozen; with `input`, Guichet runs its model
export const POST = handle(createRunEndpoint, async ({ principal, body }) => {
  const { run, warnings } =
    body.input === undefined
      ? await createRun(principal, body)
      : await startManagedRun(principal, { ...body, input: body.input });
  return { data: serializeRun(run), warnings };
});
