import "server-only";
import { getRun, effectiveStatus, type RunRow } from "@/lib/runs/service";
import { onRunEvent } from "./events";

// POST /v1/runs with `wait`: the answer waits, bounded, for the run to leave
// `active` — wherever its loop executes. The loop launched by the request
// answers with the run as it stopped; a run that went on elsewhere (taken over
// by another instance) is read again at each of its events this process
// stores, and at least every POLL_MS.

const POLL_MS = 200;

/**
 * The run once it paused or ended, or as it stands after `seconds`. `local`: the loop the caller launched in
 * this process (./takeover.ts), whose answer is the run as stored once it stopped: no read of its own then,
 * unless the loop stopped with the run still active (another instance took it over).
 */
export async function waitForRun(
  run: Pick<RunRow, "id" | "organizationId">,
  seconds: number,
  local?: Promise<RunRow | null>,
): Promise<RunRow> {
  const deadline = Date.now() + seconds * 1000;
  if (local) {
    let timer: NodeJS.Timeout | undefined;
    const stopped = await Promise.race([
      local,
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), seconds * 1000))),
    ]);
    clearTimeout(timer);
    if (stopped && effectiveStatus(stopped) !== "active") return stopped;
  }
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
