import { EVENT_STREAM_HEADERS, lastEventId, runEventStream } from "@/lib/agent-loop/event-stream";
import { handle } from "@/lib/http/handler";
import { ApiError } from "@/lib/http/errors";
import { listRunEventsEndpoint } from "@/lib/runs/api";
import { getRun } from "@/lib/runs/service";

// GET /v1/runs/{run}/events — a managed run's Server-Sent Events, from after Last-Event-ID
export const GET = handle(listRunEventsEndpoint, async ({ principal, params, request }) => {
  const run = await getRun(principal.organizationId, params.run);
  if (run.modelId === null)
    throw new ApiError("conflict", "This run is driven by its caller's tool calls: it has no event stream.");
  const after = lastEventId(request.headers.get("last-event-id"));
  return new Response(runEventStream(run, after), { status: 200, headers: EVENT_STREAM_HEADERS });
});
