import "server-only";
import { db, type Prisma } from "@/lib/db";
import {
  recordRows,
  sqliteTransaction,
  USE_PRISMA,
  type DriverStatement,
  type SqliteTransaction,
} from "@/lib/db/driver";
import type { RunRow } from "@/lib/runs/service";
import { subscribesTo } from "@/lib/webhooks/outbox";
import { recordRunStatus } from "@/lib/webhooks/events";
import type { WebhookEventType } from "@/lib/webhooks/schemas";
import type { RunEventData } from "@/lib/runs/event-schemas";
import { heldEventRows, storeRunStatusEvent } from "./events";
import { INSTANCE_ID } from "./lease";

// A managed run's own writes — its opening, its end or pause — on SQLite's
// connection under Prisma (lib/db/driver.ts), each in one synchronous
// transaction: through Prisma, their few statements cost more than the rest
// of a run's bookkeeping. Each function answers null when the caller must
// write through Prisma instead (PostgreSQL, or a case written here only
// through Prisma), and then nothing was written.

/** An event row as the loop builds it (lib/agent-loop/events.ts). */
export interface EventRow {
  runId: string;
  seq: number;
  organizationId: string;
  type: string;
  data: Prisma.InputJsonObject;
}

/** The Run columns Prisma stores as JSON text on SQLite (`Json` in the schema). */
export const RUN_JSON_COLUMNS = new Set([
  "capabilitySet",
  "warnings",
  "fileIds",
  "metadata",
  "transcript",
  "output",
  "usage",
  "failure",
  "requiredAction",
  "pendingApproval",
]);

/** A value as Prisma stores it in a SQLite column: a JSON field's as its text; dates and booleans the driver binds. */
function stored(value: unknown, json: boolean): unknown {
  return json && value !== null ? JSON.stringify(value) : value;
}

const INSERT_EVENT = `INSERT INTO "RunEvent" ("runId", "seq", "organizationId", "type", "data", "createdAt")
  VALUES ($1, $2, $3, $4, $5, $6)`;

function insertEvents(tx: SqliteTransaction, rows: readonly EventRow[]): void {
  const now = new Date();
  // One prepared statement run once per row: SQLite runs each in microseconds, inside the one transaction.
  for (const row of rows)
    tx.run({
      sql: INSERT_EVENT,
      values: [row.runId, row.seq, row.organizationId, row.type, stored(row.data, true), now],
    });
}

/**
 * Sets `data`'s columns (and updatedAt) on the run; `fenced`, only while it is active and this instance holds
 * its lease (./lease.ts). Answers the rows changed.
 */
function updateRun(
  tx: SqliteTransaction,
  run: Pick<RunRow, "id" | "organizationId">,
  data: Record<string, unknown>,
  fenced: boolean,
): number {
  const columns = Object.keys(data);
  const n = columns.length;
  const statement: DriverStatement = {
    sql: `UPDATE "Run" SET ${[...columns, "updatedAt"].map((column, i) => `"${column}" = $${i + 1}`).join(", ")}
      WHERE "id" = $${n + 2} AND "organizationId" = $${n + 3}${fenced ? ` AND "status" = 'active' AND "leaseOwner" = $${n + 4}` : ""}`,
    values: [
      ...columns.map((column) => stored(data[column], RUN_JSON_COLUMNS.has(column))),
      new Date(),
      run.id,
      run.organizationId,
      ...(fenced ? [INSTANCE_ID] : []),
    ],
  };
  return tx.run(statement);
}

/**
 * A step's progress on PostgreSQL, as a record (lib/db/driver.ts): one statement on the records' connections,
 * without waiting for the WAL flush — a commit visible to every instance at once, which a takeover reads; only
 * a crash of the database server itself could lose the last one, and then the step is redone from the one
 * before (a write still never goes twice: its proposal and operation are ordinary commits). Null: use Prisma.
 */
export async function saveProgressAsRecord(
  run: Pick<RunRow, "id" | "organizationId">,
  data: Record<string, unknown>,
  held: readonly EventRow[],
): Promise<boolean | null> {
  const columns = Object.keys(data);
  const values: unknown[] = [];
  const param = (value: unknown, cast = "") => `$${values.push(value)}${cast}`;
  const sets = columns.map((column) => {
    const value = data[column];
    if (value === null) return `"${column}" = NULL`;
    return RUN_JSON_COLUMNS.has(column)
      ? `"${column}" = ${param(JSON.stringify(value), "::jsonb")}`
      : `"${column}" = ${param(value)}`;
  });
  const now = new Date();
  const events = held.map(
    (row) =>
      `(${param(row.runId)}, ${param(row.seq)}, ${param(row.organizationId)}, ${param(row.type)}, ${param(JSON.stringify(row.data), "::jsonb")}, ${param(now, "::timestamp")})`,
  );
  const update = `UPDATE "Run" SET ${[...sets, `"updatedAt" = ${param(now, "::timestamp")}`].join(", ")}
    WHERE "id" = ${param(run.id)} AND "organizationId" = ${param(run.organizationId)} AND "status" = 'active' AND "leaseOwner" = ${param(INSTANCE_ID)}
    RETURNING "id"`;
  // The events are stored even when the run stopped meanwhile (as on SQLite): their tool calls did run.
  const sql = events.length
    ? `WITH "held" AS (INSERT INTO "RunEvent" ("runId", "seq", "organizationId", "type", "data", "createdAt") VALUES ${events.join(", ")}) ${update}`
    : update;
  try {
    const rows = await recordRows<{ id: string }>({ sql, values });
    return rows === null ? null : rows.length === 1;
  } catch (error) {
    // An event number taken meanwhile: the caller renumbers from the database, as after Prisma's P2002.
    if ((error as { code?: unknown }).code === "23505")
      throw Object.assign(new Error("event seq taken"), { code: "P2002" });
    throw error;
  }
}

/**
 * A step's progress on SQLite's connection, in one transaction: the events the loop held, then the run's
 * conversation, usage and lease, only while it is active and this instance's. Null: write through Prisma.
 */
export function saveProgressOnDriver(
  run: Pick<RunRow, "id" | "organizationId">,
  data: Record<string, unknown>,
  held: readonly EventRow[],
): boolean | null {
  return sqliteTransaction((tx) => {
    // The events are stored even when the run stopped meanwhile: their tool calls did run.
    insertEvents(tx, held);
    return updateRun(tx, run, data, true) === 1;
  });
}

/**
 * A new managed run's opening: its model, conversation and usage, and its first event; `alongside`, the
 * opener's own statements that must commit with it (a widget's message, lib/widgets/turn.ts).
 */
export function storeOpening(
  run: Pick<RunRow, "id" | "organizationId">,
  data: { modelId: string; stream: boolean; transcript: unknown; usage: unknown },
  first: EventRow,
  alongside: readonly DriverStatement[] = [],
): true | null {
  return sqliteTransaction((tx) => {
    updateRun(tx, run, data, false);
    insertEvents(tx, [first]);
    for (const statement of alongside) tx.run(statement);
    return true as const;
  });
}

/**
 * moveActiveRun on SQLite's connection: the events held, the
 * status with `data`, then the status event numbered `nextSeq` (or after the run's last). False when the run
 * was no longer active. A webhook endpoint subscribed to the event needs the outbox's rows: that goes through
 * Prisma (lib/webhooks/events.ts).
 */
function moveActiveRunOnDriver(
  run: Pick<RunRow, "id" | "organizationId">,
  data: Record<string, unknown>,
  held: readonly EventRow[],
  nextSeq: number | undefined,
  status: { type: WebhookEventType; data: Prisma.InputJsonObject },
): boolean | null {
  return sqliteTransaction((tx) => {
    const endpoints = tx.rows<{ events: unknown }>({
      sql: `SELECT "events" FROM "WebhookEndpoint" WHERE "organizationId" = $1 AND "status" = 'enabled'`,
      values: [run.organizationId],
    });
    if (endpoints.some((endpoint) => subscribesTo(endpoint.events, status.type))) return USE_PRISMA;
    insertEvents(tx, held);
    if (updateRun(tx, run, data, true) !== 1) return false;
    const seq =
      nextSeq ??
      (tx.rows<{ last: number | null }>({
        sql: `SELECT MAX("seq") AS "last" FROM "RunEvent" WHERE "runId" = $1`,
        values: [run.id],
      })[0]?.last ?? 0) + 1;
    insertEvents(tx, [
      { runId: run.id, seq, organizationId: run.organizationId, type: status.type, data: status.data },
    ]);
    return true;
  });
}

export type HeldRows = Awaited<ReturnType<typeof heldEventRows>>;

export type StatusEventType = "run.requires_action" | "run.requires_approval" | "run.completed" | "run.failed";
export type StatusDetails = { failureCode?: string | null; proposals?: string[] };

/**
 * One transaction moves an active run to a waiting or final status: the events its loop held, the new
 * status with `data`, the webhook event and the stream event after the held ones. False when the run was
 * no longer active or no longer this instance's (a cancel, an expiry or a takeover won); the caller
 * announces the event once this committed.
 */
export async function moveActiveRun<T extends StatusEventType>(
  run: RunRow,
  data: Prisma.RunUpdateManyMutationInput,
  rows: HeldRows,
  nextSeq: number | undefined,
  type: T,
  event: RunEventData<T>,
  details: StatusDetails,
): Promise<boolean> {
  const onDriver = moveActiveRunOnDriver(run, data, rows, nextSeq, {
    type,
    data: event as unknown as Prisma.InputJsonObject,
  });
  if (onDriver !== null) return onDriver;
  return db.$transaction(async (tx) => {
    if (rows.length) await tx.runEvent.createMany({ data: rows });
    const moved = await tx.run.updateMany({
      where: { id: run.id, organizationId: run.organizationId, status: "active", leaseOwner: INSTANCE_ID },
      data,
    });
    if (moved.count !== 1) return false;
    await recordRunStatus(tx, run, type, details);
    await storeRunStatusEvent(tx, run, type, event, nextSeq);
    return true;
  });
}
