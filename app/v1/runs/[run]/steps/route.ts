import { handle } from "@/lib/http/handler";
import { listStepsEndpoint } from "@/lib/runs/api";
import { getRun } from "@/lib/runs/service";
import { listSteps } from "@/lib/runs/steps";

// GET /v1/runs/{run}/steps — the run's tool calls, newest first, without payloads
export const GET = handle(listStepsEndpoint, async ({ principal, params, query }) => {
  const run = await getRun(principal.organizationId, params.run);
  return listSteps(principal.organizationId, run.id, query);
});
