import { env } from "@/lib/env";
import { hit } from "@/lib/http/rate-limit";

// Tool-call limits: a loop in a run must not flood a tool, and one busy
// organization must not starve the others. Windows are counted where every app
// instance sees them (Redis when REDIS_URL is set, the database otherwise).

export interface CallLimitRefusal {
  scope: "run" | "organization";
  retryAfterMs: number;
}

const WINDOW_MS = 60_000;

/** Counts one call for the run and its organization; the first exhausted limit refuses it. */
export async function takeCallSlot(
  organizationId: string,
  runId: string,
  now = Date.now(),
): Promise<CallLimitRefusal | null> {
  const run = await hit(`tool-calls:run:${runId}`, env.GUICHET_RUN_CALLS_PER_MINUTE, WINDOW_MS, now);
  if (!run.allowed) return { scope: "run", retryAfterMs: run.retryAfterMs };
  const organization = await hit(`tool-calls:org:${organizationId}`, env.GUICHET_ORG_CALLS_PER_MINUTE, WINDOW_MS, now);
  if (!organization.allowed) return { scope: "organization", retryAfterMs: organization.retryAfterMs };
  return null;
}
