import { EVENT_STREAM_HEADERS, runEventStream } from "@/lib/agent-loop/event-stream";
import { driveManagedRun } from "@/lib/agent-loop/loop";
import { prepareManagedRun, startManagedRun } from "@/lib/agent-loop/start";
import { ApiError } from "@/lib/http/errors";
import { handle } from "@/lib/http/handler";
import { page } from "@/lib/http/validation";
import { log } from "@/lib/log";
import { createRunEndpoint, listRunsEndpoint, serializeRun } from "@/lib/runs/api";
import { createRun, listRuns } from "@/lib/runs/service";

// GET /v1/runs — list runs, newest first
export const GET = handle(listRunsEndpoint, async ({ principal, query }) =>
  page(await listRuns(principal.organizationId, query), query.limit, serializeRun),
);

function streamRefusal(field: string, code: string, message: string): ApiError {
  return new ApiError("invalid_parameter", message, { errors: [{ field, code, message }] });
}

// POST /v1/runs — start a run of an agent, its capability set frozen; with `input`, Guichet runs its model
export const POST = handle(createRunEndpoint, async ({ principal, body, request }) => {
  if (body.stream && body.input === undefined)
    throw streamRefusal("stream", "requires_input", "stream: true needs `input`: only a managed run streams events.");
  if (body.stream && request.headers.has("idempotency-key"))
    throw streamRefusal(
      "Idempotency-Key",
      "not_with_stream",
      "A streamed run is not replayed by Idempotency-Key: send it without stream, or re-attach with GET /v1/runs/{run}/events.",
    );
  if (body.stream && body.input !== undefined) {
    const prepared = await prepareManagedRun(principal, { ...body, input: body.input });
    // The run belongs to no request: a client that goes away leaves it running, and can re-attach.
    driveManagedRun(prepared.run, prepared.messages, prepared.settings, { stored: true }).catch((error: unknown) =>
      log("error", "managed_run_crashed", {
        run: prepared.run.id,
        error: error instanceof Error ? error.name : "unknown",
      }),
    );
    return new Response(runEventStream(prepared.run, 0), { status: 201, headers: EVENT_STREAM_HEADERS });
  }
  const { run, warnings } =
    body.input === undefined
      ? await createRun(principal, body)
      : await startManagedRun(principal, { ...body, input: body.input });
  return { data: serializeRun(run), warnings };
});
