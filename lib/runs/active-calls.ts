// Tool calls in flight in this process, by run, so that cancelling a run stops
// them at once. Another instance's calls stop at their next check of the run's
// status (each call reads it before executing). A call whose contract declares
// it not interruptible once sent is still signalled (what it has not sent yet
// stops), but its request to the service runs to its answer: the run's cancel
// counts it apart (lib/dispatch/execution.ts reads the contract's `cancellation`).

interface CallInFlight {
  controller: AbortController;
  interruptible: boolean;
}

const inFlight = new Map<string, Set<CallInFlight>>();

export interface TrackedCall {
  signal: AbortSignal;
  /** The call's contract says a cancel does not cut it once sent. */
  notInterruptible: () => void;
  done: () => void;
}

export function trackCall(runId: string): TrackedCall {
  const call: CallInFlight = { controller: new AbortController(), interruptible: true };
  const set = inFlight.get(runId) ?? new Set<CallInFlight>();
  set.add(call);
  inFlight.set(runId, set);
  return {
    signal: call.controller.signal,
    notInterruptible: () => {
      call.interruptible = false;
    },
    done: () => {
      set.delete(call);
      if (set.size === 0) inFlight.delete(runId);
    },
  };
}

export interface AbortedCalls {
  /** Calls cut at once. */
  stopped: number;
  /** Calls whose contract is not interruptible: they finish with the service's answer, which is recorded. */
  uninterruptible: number;
}

/** Signals this process's calls of the run; answers how many were cut and how many run to their answer. */
export function abortRunCalls(runId: string): AbortedCalls {
  const set = inFlight.get(runId);
  if (!set) return { stopped: 0, uninterruptible: 0 };
  let uninterruptible = 0;
  for (const call of set) {
    if (!call.interruptible) uninterruptible++;
    call.controller.abort();
  }
  inFlight.delete(runId);
  return { stopped: set.size - uninterruptible, uninterruptible };
}
