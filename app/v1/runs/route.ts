import { EVENT_STREAM_HEADERS, runEventStream } from "@/lib/agent-loop/event-stream";
import { prepareManagedRun } from "@/lib/agent-loop/start";
import { launch } from "@/lib/agent-loop/takeover";
import { waitForRun } from "@/lib/agent-loop/wait";
import { ApiError } from "@/lib/http/errors";
import { handle } from "@/lib/http/handler";
import { page } from "@/lib/http/validation";
import { createRunEndpoint, listRunsEndpoint, serializeRun } from "@/lib/runs/api";
import { createRun, listRuns } from "@/lib/runs/service";

// GET /v1/runs — list runs, newest first
export const GET = handle(listRunsEndpoint, async ({ principal, query }) =>
  page(await listRuns(principal.organizationId, query), query.limit, serializeRun),
);

function streamRefusal(field: string, code: string, message: string): ApiError {
  return new ApiError("invalid_parameter", message, { errors: [{ field, code, message }] });
}

// POST /v1/runs — start a run of an agent, its capability set frozen; with `input`, Guichet runs its model in the background
export const POST = handle(createRunEndpoint, async ({ principal, body, request }) => {
  if (body.stream && body.input === undefined)
    throw streamRefusal("stream", "requires_input", "stream: true needs `input`: only a managed run streams events.");
  if (body.wait !== undefined && body.input === undefined)
    throw streamRefusal("wait", "requires_input", "`wait` needs `input`: only a managed run runs in the background.");
  if (body.wait !== undefined && body.stream)
    throw streamRefusal(
      "wait",
      "not_with_stream",
      "`wait` answers the run once it pauses or ends; a stream already does.",
    );
  if (body.stream && request.headers.has("idempotency-key"))
    throw streamRefusal(
      "Idempotency-Key",
      "not_with_stream",
      "A streamed run is not replayed by Idempotency-Key: send it without stream, or re-attach with GET /v1/runs/{run}/events.",
    );
  if (body.input === undefined) {
    const { run, warnings } = await createRun(principal, body);
    return { data: serializeRun(run), warnings };
  }
  const prepared = await prepareManagedRun(principal, { ...body, input: body.input });
  // The run belongs to no request: its loop runs in the background under this instance's lease, and another
  // instance takes it over if this one stops. A client that goes away leaves it running, and can re-attach.
  const stopped = launch(prepared.run, prepared.messages, prepared.settings, { stored: true });
  if (body.stream) return new Response(runEventStream(prepared.run, 0), { status: 201, headers: EVENT_STREAM_HEADERS });
  const run = body.wait ? await waitForRun(prepared.run, body.wait, stopped) : prepared.run;
  return { data: serializeRun(run), warnings: prepared.warnings };
});
