import "server-only";
import { db, isUniqueViolation, type DbOrTx } from "@/lib/db";
import { isoOffset } from "@/lib/time";

// Telemetry without payloads: hourly counters keyed by tool@version, error code
// and field. Nothing here can hold an argument or a result — only names the
// registry or the validator produced.

export const telemetryMetrics = [
  "call",
  "validation_error",
  "approval_decision",
  "conflict",
  "unknown_outcome",
  "retry",
  "output_error",
  /** A write the shadow policy table would have decided otherwise (code: the kind of difference). */
  "shadow_difference",
] as const;
export type TelemetryMetric = (typeof telemetryMetrics)[number];

export interface TelemetryEvent {
  metric: TelemetryMetric;
  tool?: string;
  version?: number;
  /** Error code, retry class or decision, depending on the metric. */
  code?: string;
  /** JSON pointer of the argument a validation error is about. */
  field?: string;
  count?: number;
}

const HOUR_MS = 3_600_000;

export function hourOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
}

/** Adds events to the hour's counters. The proposals engine counts approval decisions, conflicts and unknown outcomes here too. */
export async function countTelemetry(
  organizationId: string,
  events: TelemetryEvent[],
  at = new Date(),
  tx: DbOrTx = db,
): Promise<void> {
  for (const event of events) {
    const { count, ...id } = counterRow(organizationId, event, at);
    await increment(tx, id, count);
  }
}

/** The counter an event adds to, and by how much: names cut to their column's length. */
export function counterRow(organizationId: string, event: TelemetryEvent, at: Date): CounterId & { count: number } {
  return {
    organizationId,
    bucket: hourOf(at),
    metric: event.metric,
    tool: (event.tool ?? "").slice(0, 200),
    version: event.version ?? 0,
    code: (event.code ?? "").slice(0, 60),
    field: (event.field ?? "").slice(0, 200),
    count: event.count ?? 1,
  };
}

type CounterId = {
  organizationId: string;
  bucket: Date;
  metric: string;
  tool: string;
  version: number;
  code: string;
  field: string;
};

async function increment(tx: DbOrTx, id: CounterId, count: number, attempt = 0): Promise<void> {
  try {
    await tx.telemetryCounter.upsert({
      where: { organizationId_bucket_metric_tool_version_code_field: id },
      create: { ...id, count },
      update: { count: { increment: count } },
    });
  } catch (error) {
    // Two instances creating the same counter at once: the loser increments the winner's row.
    if (attempt < 3 && isUniqueViolation(error)) return increment(tx, id, count, attempt + 1);
    throw error;
  }
}

export interface TelemetrySummary {
  from: string;
  to: string;
  totals: {
    calls: number;
    errors: number;
    retries: number;
    output_errors: number;
    validation_errors: number;
    conflicts: number;
    unknown_outcomes: number;
  };
  calls: { tool: string; version: number; calls: number; errors: number }[];
  errors_by_code: { code: string; count: number }[];
  validation_errors: { tool: string; version: number; code: string; field: string; count: number }[];
  retries: { retry_class: string; tool: string; version: number; count: number }[];
  output_errors: { tool: string; version: number; count: number }[];
  approval_decisions: { decision: string; count: number }[];
  shadow_differences: { tool: string; kind: string; count: number }[];
  series: { bucket: string; calls: number; errors: number }[];
}

/** Adds `count` to the entry with the same dimensions (counters of several hours fold into one). */
function merge<T extends Record<string, string | number>>(list: (T & { count: number })[], dims: T, count: number) {
  const same = list.find((entry) => Object.entries(dims).every(([k, v]) => entry[k] === v));
  if (same) same.count += count;
  else list.push({ ...dims, count });
}

function bump<K>(map: Map<K, number>, key: K, by: number) {
  map.set(key, (map.get(key) ?? 0) + by);
}

/** The organization's counters over the last `hours` hours, grouped for the API and the console. */
export async function telemetrySummary(
  organizationId: string,
  hours: number,
  now = new Date(),
  tx: DbOrTx = db,
): Promise<TelemetrySummary> {
  const to = new Date(hourOf(now).getTime() + HOUR_MS);
  const from = new Date(to.getTime() - hours * HOUR_MS);
  const rows = await tx.telemetryCounter.findMany({ where: { organizationId, bucket: { gte: from, lt: to } } });
  const calls = new Map<string, { tool: string; version: number; calls: number; errors: number }>();
  const codes = new Map<string, number>();
  const decisions = new Map<string, number>();
  const series = new Map<number, { calls: number; errors: number }>();
  for (let t = from.getTime(); t < to.getTime(); t += HOUR_MS) series.set(t, { calls: 0, errors: 0 });
  const summary: TelemetrySummary = {
    from: isoOffset(from),
    to: isoOffset(to),
    totals: {
      calls: 0,
      errors: 0,
      retries: 0,
      output_errors: 0,
      validation_errors: 0,
      conflicts: 0,
      unknown_outcomes: 0,
    },
    calls: [],
    errors_by_code: [],
    validation_errors: [],
    retries: [],
    output_errors: [],
    approval_decisions: [],
    shadow_differences: [],
    series: [],
  };
  for (const row of rows) {
    const point = series.get(row.bucket.getTime());
    switch (row.metric) {
      case "call": {
        const key = `${row.tool}@${row.version}`;
        const entry = calls.get(key) ?? { tool: row.tool, version: row.version, calls: 0, errors: 0 };
        entry.calls += row.count;
        summary.totals.calls += row.count;
        if (point) point.calls += row.count;
        if (row.code !== "ok") {
          entry.errors += row.count;
          summary.totals.errors += row.count;
          if (point) point.errors += row.count;
          bump(codes, row.code, row.count);
        }
        calls.set(key, entry);
        break;
      }
      case "validation_error":
        merge(
          summary.validation_errors,
          { tool: row.tool, version: row.version, code: row.code, field: row.field },
          row.count,
        );
        summary.totals.validation_errors += row.count;
        break;
      case "retry":
        merge(summary.retries, { retry_class: row.code, tool: row.tool, version: row.version }, row.count);
        summary.totals.retries += row.count;
        break;
      case "output_error":
        merge(summary.output_errors, { tool: row.tool, version: row.version }, row.count);
        summary.totals.output_errors += row.count;
        break;
      case "approval_decision":
        bump(decisions, row.code, row.count);
        break;
      case "shadow_difference":
        merge(summary.shadow_differences, { tool: row.tool, kind: row.code }, row.count);
        break;
      case "conflict":
        summary.totals.conflicts += row.count;
        break;
      case "unknown_outcome":
        summary.totals.unknown_outcomes += row.count;
        break;
    }
  }
  summary.calls = [...calls.values()].sort((a, b) => b.calls - a.calls || a.tool.localeCompare(b.tool));
  summary.errors_by_code = [...codes].map(([code, count]) => ({ code, count })).sort((a, b) => b.count - a.count);
  summary.approval_decisions = [...decisions].map(([decision, count]) => ({ decision, count }));
  summary.validation_errors.sort((a, b) => b.count - a.count);
  summary.series = [...series].map(([t, v]) => ({ bucket: isoOffset(new Date(t)), ...v }));
  return summary;
}
