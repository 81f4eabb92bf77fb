// Calls in flight on this instance, by session run and JSON-RPC request id, so
// that a client's `notifications/cancelled` (its own POST) stops the call as
// cancelling a run does. A notification that reaches another instance finds
// nothing here: that call runs to its end and the client discards the answer,
// as the protocol allows (cancellation is best effort).

const inFlight = new Map<string, AbortController>();

function keyOf(runId: string, requestId: string | number): string {
  return `${runId}\n${typeof requestId}:${requestId}`;
}

export function trackMcpCall(runId: string, requestId: string | number): { signal: AbortSignal; done: () => void } {
  const key = keyOf(runId, requestId);
  const controller = new AbortController();
  inFlight.set(key, controller);
  return {
    signal: controller.signal,
    done: () => (inFlight.get(key) === controller ? inFlight.delete(key) : undefined),
  };
}

/** Whether a call of this session with this request id was running here and is now stopped. */
export function cancelMcpCall(runId: string, requestId: string | number): boolean {
  const controller = inFlight.get(keyOf(runId, requestId));
  if (!controller) return false;
  controller.abort();
  return true;
}
