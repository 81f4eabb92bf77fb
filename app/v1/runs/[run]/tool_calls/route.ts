import { toolCallEndpoint } from "@/lib/dispatch/api";
import { dispatchToolCall } from "@/lib/proposals/dispatch";
import { handle } from "@/lib/http/handler";
import { driverOf } from "@/lib/runs/driver";

// POST /v1/runs/{run}/tool_calls — call a tool of the run through the dispatcher (the tool envelope, always 200);
// only the key or person who opened the run may (403 run_not_yours otherwise)
export const POST = handle(toolCallEndpoint, async ({ principal, params, body }) =>
  dispatchToolCall({
    organizationId: principal.organizationId,
    runId: params.run,
    driver: driverOf(principal),
    tool: body.tool,
    arguments: body.arguments === undefined ? {} : body.arguments,
  }),
);
