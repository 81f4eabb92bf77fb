import type { Principal } from "@/lib/auth/principal";
import { ApiError } from "@/lib/http/errors";
import type { RunRow } from "./model";

// A run is driven by the principal that opened it, and by no one else: its
// tool calls and tool outputs come from that API key or that signed-in member.
// What those calls leave behind (steps, proposals) records who made them, and
// the four-eyes rule compares approvers with that person — so another key or
// member of the organization cannot act inside someone's run, nor ask in
// their name and then approve.

/**
 * Who makes a call in a run: exactly one is set. `widgetId`: a widget's visitor
 * opened the run (lib/widgets); Guichet drives it for the widget, and no key or
 * member of the organization may act inside it.
 */
export interface RunDriver {
  apiKeyId: string | null;
  memberId: string | null;
  widgetId?: string | null;
}

/** Who opens a run: a /v1 or MCP principal, or a widget for one of its visitors. */
export type RunOpener = Principal | { kind: "widget"; organizationId: string; widgetId: string };

/** The caller of a /v1 request or an MCP session, as a run driver. */
export function driverOf(principal: Principal): RunDriver {
  return principal.kind === "apiKey"
    ? { apiKeyId: principal.apiKeyId, memberId: null }
    : { apiKeyId: null, memberId: principal.memberId };
}

/**
 * The run's opener: who acts when Guichet moves the run on itself (a managed
 * run resuming after an approval) or through the session that opened it (the
 * MCP door, whose session lookup already matched the key).
 */
export function openerOf(run: Pick<RunRow, "apiKeyId" | "memberId"> & { widgetId?: string | null }): RunDriver {
  return { apiKeyId: run.apiKeyId, memberId: run.memberId, widgetId: run.widgetId ?? null };
}

/** Whether this driver opened the run. A run with no recorded opener is driven by no principal. */
export function drives(
  run: Pick<RunRow, "apiKeyId" | "memberId"> & { widgetId?: string | null },
  driver: RunDriver,
): boolean {
  const widgetId = driver.widgetId ?? null;
  if (driver.apiKeyId === null && driver.memberId === null && widgetId === null) return false;
  return run.apiKeyId === driver.apiKeyId && run.memberId === driver.memberId && (run.widgetId ?? null) === widgetId;
}

/** Refuses a call from anyone but the run's opener, before anything of the call is stored. */
export function assertDrives(
  run: Pick<RunRow, "apiKeyId" | "memberId"> & { widgetId?: string | null },
  driver: RunDriver,
): void {
  if (drives(run, driver)) return;
  throw new ApiError(
    "run_not_yours",
    run.apiKeyId
      ? "This run was opened with another API key: only that key may make its tool calls and answer its tool outputs."
      : "This run was opened by another person: only they may make its tool calls and answer its tool outputs.",
  );
}
