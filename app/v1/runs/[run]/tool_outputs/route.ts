import { submitToolOutputs } from "@/lib/agent-loop/resume";
import { handle } from "@/lib/http/handler";
import { serializeRun, createToolOutputsEndpoint } from "@/lib/runs/api";

// POST /v1/runs/{run}/tool_outputs — answer a managed run's client tool calls; the run resumes
export const POST = handle(createToolOutputsEndpoint, async ({ principal, params, body }) => ({
  data: serializeRun(await submitToolOutputs(principal.organizationId, params.run, body)),
}));
