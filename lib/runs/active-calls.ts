// Tool calls in flight in this process, by run, so that cancelling a run stops
// them at once. Another instance's calls stop at their next check of the run's
// status (each call reads it before executing); a request already accepted by
// a remote service cannot be taken back — the contract's `cancellation` says so.

const inFlight = new Map<string, Set<AbortController>>();

export function trackCall(runId: string): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const set = inFlight.get(runId) ?? new Set<AbortController>();
  set.add(controller);
  inFlight.set(runId, set);
  return {
    signal: controller.signal,
    done: () => {
      set.delete(controller);
      if (set.size === 0) inFlight.delete(runId);
    },
  };
}

/** Aborts this process's calls of the run; returns how many were stopped. */
export function abortRunCalls(runId: string): number {
  const set = inFlight.get(runId);
  if (!set) return 0;
  for (const controller of set) controller.abort();
  inFlight.delete(runId);
  return set.size;
}
