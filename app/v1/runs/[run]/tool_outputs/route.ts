import { submitToolOutputs } from "@/lib/agent-loop/resume";
import { handle } from "@/lib/http/handler";
import { driverOf } from "@/lib/runs/driver";
import { serializeRun, createToolOutputsEndpoint } from "@/lib/runs/api";

// POST /v1/runs/{run}/tool_outputs — answer a managed run's client tool calls; the run resumes.
// Only the key or person who opened the run may (403 run_not_yours otherwise).
export const POST = handle(createToolOutputsEndpoint, async ({ principal, params, body }) => ({
  data: serializeRun(await submitToolOutputs(principal.organizationId, params.run, body, driverOf(principal))),
}));
