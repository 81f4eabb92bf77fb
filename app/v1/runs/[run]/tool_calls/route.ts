import { toolCallEndpoint } from "@/lib/dispatch/api";
import { dispatchToolCall } from "@/lib/proposals/dispatch";
import { handle } from "@/lib/http/handler";

// POST /v1/runs/{run}/tool_calls — call a tool of the run through the dispatcher (the tool envelope, always 200)
export const POST = handle(toolCallEndpoint, async ({ principal, params, body }) =>
  dispatchToolCall({
    organizationId: principal.organizationId,
    runId: params.run,
    tool: body.tool,
    arguments: body.arguments === undefined ? {} : body.arguments,
  }),
);
