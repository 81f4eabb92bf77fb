import { handle } from "@/lib/http/handler";
import { cancelRunEndpoint, serializeRun } from "@/lib/runs/api";
import { cancelRun } from "@/lib/runs/service";

// POST /v1/runs/{run}/cancel — stop a run: no further tool call, calls in flight aborted unless their contract says otherwise
export const POST = handle(cancelRunEndpoint, async ({ principal, params }) => {
  const { run, calls } = await cancelRun(principal.organizationId, params.run);
  return {
    status: 200,
    body: {
      data: serializeRun(run),
      cancellation: {
        stopped_calls: calls.stopped,
        uninterruptible_calls: calls.uninterruptible,
        note: "Calls already accepted by a remote service cannot be taken back: they finish and their answer is recorded; the run accepts no further call.",
      },
    },
  };
});
