import "server-only";
import { getRun, effectiveStatus, type RunRow } from "@/lib/runs/service";
import { onRunEvent } from "./events";

// POST /v1/runs with `wait`: the answer waits, bounded, for the run to leave
// `active` — wherever its loop executes. This process's loop wakes the wait at
// once through the run's events; a loop on another instance (after a
// takeover) is found by reading the run again every POLL_MS.

const POLL_MS = 200;

/** The run once it paused or ended, or as it stands after `seconds`. */
export async function waitForRun(run: Pick<RunRow, "id" | "organizationId">, seconds: number): Promise<RunRow> {
  const deadline = Date.now() + seconds * 1000;
  let wake: (() => void) | null = null;
  const unsubscribe = onRunEvent(run.id, () => wake?.());
  try {
    for (;;) {
      const current = await getRun(run.organizationId, run.id);
      const left = deadline - Date.now();
      if (effectiveStatus(current) !== "active" || left <= 0) return current;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(POLL_MS, left));
        function done() {
          clearTimeout(timer);
          wake = null;
          resolve();
        }
        wake = done;
      });
    }
  } finally {
    unsubscribe();
  }
}
