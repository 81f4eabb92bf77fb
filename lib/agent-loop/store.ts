import "server-only";
import { db, Prisma, provider } from "@/lib/db";
import {
  driverRows,
  driverTransaction,
  isDriverUniqueViolation,
  recordRows,
  USE_PRISMA,
  type DriverStatement,
  type DriverWork,
} from "@/lib/db/driver";
import { RUN_JSON_COLUMNS, runColumnValue, type RunRow } from "@/lib/runs/service";
import { subscribesTo } from "@/lib/webhooks/outbox";
import { recordRunStatus } from "@/lib/webhooks/events";
import type { WebhookEventType } from "@/lib/webhooks/schemas";
import type { RunEventData } from "@/lib/runs/event-schemas";
import { heldEventRows, storeRunStatusEvent } from "./events";
import { INSTANCE_ID } from "./lease";

// A managed run's own writes — its opening, its progress, its end or pause —
// on the driver under Prisma (lib/db/driver.ts), each in one transaction
// written once for both databases (synchronous on SQLite's connection, one
// pooled connection on PostgreSQL): through Prisma, their few statements cost
// more than the rest of a run's bookkeeping. Each function answers null when
// the caller must write through Prisma instead (not connected yet, or a case
// written here only through Prisma), and then nothing was written.

/** An event row as the loop builds it (lib/agent-loop/events.ts). */
export interface EventRow {
  runId: string;
  seq: number;
  organizationId: string;
  type: string;
  data: Prisma.InputJsonObject;
}

/** The rows as one INSERT (JSON as text: PostgreSQL reads it as the jsonb column it goes to). */
function insertEvents(rows: readonly EventRow[]): DriverStatement {
  const now = new Date();
  const values: unknown[] = [];
  const tuples = rows.map((row) => {
    const first = values.push(row.runId, row.seq, row.organizationId, row.type, JSON.stringify(row.data), now) - 5;
    return `(${[0, 1, 2, 3, 4, 5].map((i) => `$${first + i}`).join(", ")})`;
  });
  return {
    sql: `INSERT INTO "RunEvent" ("runId", "seq", "organizationId", "type", "data", "createdAt") VALUES ${tuples.join(", ")}`,
    values,
  };
}

/**
 * Sets `data`'s columns (and updatedAt) on the run; `fenced`, only while it is active and this instance holds
 * its lease (./lease.ts). Answers whether the run was changed.
 */
function* updateRun(
  run: Pick<RunRow, "id" | "organizationId">,
  data: Record<string, unknown>,
  fenced: boolean,
): DriverWork<boolean> {
  const columns = Object.keys(data);
  const n = columns.length;
  const rows = yield {
    sql: `UPDATE "Run" SET ${[...columns, "updatedAt"].map((column, i) => `"${column}" = $${i + 1}`).join(", ")}
      WHERE "id" = $${n + 2} AND "organizationId" = $${n + 3}${fenced ? ` AND "status" = 'active' AND "leaseOwner" = $${n + 4}` : ""}
      RETURNING "id"`,
    values: [
      ...columns.map((column) => runColumnValue(column, data[column])),
      new Date(),
      run.id,
      run.organizationId,
      ...(fenced ? [INSTANCE_ID] : []),
    ],
  };
  return rows.length === 1;
}

/** `write`, with an event number taken meanwhile thrown as Prisma's P2002: the caller renumbers. */
async function seqChecked<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isDriverUniqueViolation(error)) throw Object.assign(new Error("event seq taken"), { code: "P2002" });
    throw error;
  }
}

function runTransaction<T>(work: () => DriverWork<T | typeof USE_PRISMA>): Promise<T | null> {
  return seqChecked(() => driverTransaction(work));
}

/**
 * PostgreSQL's statements below are one round trip each, committed on their own (on Prisma's pool, waiting
 * for the disk as any commit): a statement's parameters take the types they are cast to.
 */
function pgParams() {
  const values: unknown[] = [];
  return { values, param: (value: unknown, cast: string) => `$${values.push(value)}::${cast}` };
}

function pgEventTuples(rows: readonly EventRow[], param: (value: unknown, cast: string) => string, now: Date) {
  return rows.map(
    (row) =>
      `(${param(row.runId, "text")}, ${param(row.seq, "int")}, ${param(row.organizationId, "text")}, ${param(row.type, "text")}, ${param(JSON.stringify(row.data), "jsonb")}, ${param(now, "timestamp")})`,
  );
}

function pgRunSets(data: Record<string, unknown>, param: (value: unknown, cast: string) => string, now: Date) {
  const sets = Object.entries(data).map(([column, value]) => {
    const stored = runColumnValue(column, value);
    if (stored === null) return `"${column}" = NULL`;
    const cast = RUN_JSON_COLUMNS.has(column)
      ? "jsonb"
      : stored instanceof Date
        ? "timestamp"
        : typeof stored === "boolean"
          ? "boolean"
          : typeof stored === "number"
            ? "int"
            : "text";
    return `"${column}" = ${param(stored, cast)}`;
  });
  return [...sets, `"updatedAt" = ${param(now, "timestamp")}`].join(", ");
}

const EVENT_COLUMNS = `"runId", "seq", "organizationId", "type", "data", "createdAt"`;

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
  const { values, param } = pgParams();
  const now = new Date();
  const events = pgEventTuples(held, param, now);
  const update = `UPDATE "Run" SET ${pgRunSets(data, param, now)}
    WHERE "id" = ${param(run.id, "text")} AND "organizationId" = ${param(run.organizationId, "text")} AND "status" = 'active' AND "leaseOwner" = ${param(INSTANCE_ID, "text")}
    RETURNING "id"`;
  // The events are stored even when the run stopped meanwhile (as on SQLite): their tool calls did run.
  const sql = events.length
    ? `WITH "held" AS (INSERT INTO "RunEvent" (${EVENT_COLUMNS}) VALUES ${events.join(", ")}) ${update}`
    : update;
  const rows = await seqChecked(() => recordRows<{ id: string }>({ sql, values }));
  return rows === null ? null : rows.length === 1;
}

/**
 * A step's progress in one transaction (SQLite, or PostgreSQL when records wait for the disk): the events the
 * loop held, then the run's conversation, usage and lease, only while it is active and this instance's.
 * Null: write through Prisma.
 */
export function saveProgressOnDriver(
  run: Pick<RunRow, "id" | "organizationId">,
  data: Record<string, unknown>,
  held: readonly EventRow[],
): Promise<boolean | null> {
  return runTransaction(function* () {
    // The events are stored even when the run stopped meanwhile: their tool calls did run.
    if (held.length) yield insertEvents(held);
    return yield* updateRun(run, data, true);
  });
}

/**
 * A new managed run's opening: its model, conversation and usage, and its first event; `alongside`, the
 * opener's own statements that must commit with it (a widget's message, lib/widgets/turn.ts).
 */
export async function storeOpening(
  run: Pick<RunRow, "id" | "organizationId">,
  data: { modelId: string; stream: boolean; transcript: unknown; usage: unknown },
  first: EventRow,
  alongside: readonly DriverStatement[] = [],
): Promise<true | null> {
  if (provider === "postgresql" && alongside.length === 0) {
    const { values, param } = pgParams();
    const now = new Date();
    const sets = pgRunSets(data, param, now);
    const sql = `WITH "opened" AS (
        UPDATE "Run" SET ${sets} WHERE "id" = ${param(run.id, "text")} AND "organizationId" = ${param(run.organizationId, "text")}
      ) INSERT INTO "RunEvent" (${EVENT_COLUMNS}) VALUES ${pgEventTuples([first], param, now).join(", ")}`;
    if (await driverRows({ sql, values })) return true;
  }
  return runTransaction(function* () {
    yield* updateRun(run, data, false);
    yield insertEvents([first]);
    for (const statement of alongside) yield statement;
    return true as const;
  });
}

/**
 * moveActiveRun on the driver: the events held, the status with `data`, then the status event numbered
 * `nextSeq` (or after the run's last). False when the run was no longer active. A webhook endpoint subscribed
 * to the event needs the outbox's rows: that goes through Prisma (lib/webhooks/events.ts).
 */
function* moveActiveRunOnDriver(
  run: Pick<RunRow, "id" | "organizationId">,
  data: Record<string, unknown>,
  held: readonly EventRow[],
  nextSeq: number | undefined,
  status: { type: WebhookEventType; data: Prisma.InputJsonObject },
): DriverWork<boolean | typeof USE_PRISMA> {
  const endpoints = yield {
    sql: `SELECT "events" FROM "WebhookEndpoint" WHERE "organizationId" = $1 AND "status" = 'enabled'`,
    values: [run.organizationId],
  };
  if (endpoints.some((endpoint) => subscribesTo(endpoint.events, status.type))) return USE_PRISMA;
  if (held.length) yield insertEvents(held);
  if (!(yield* updateRun(run, data, true))) return false;
  const seq =
    nextSeq ??
    (((yield {
      sql: `SELECT MAX("seq") AS "last" FROM "RunEvent" WHERE "runId" = $1`,
      values: [run.id],
    })[0]?.last as number | null) ?? 0) + 1;
  yield insertEvents([
    { runId: run.id, seq, organizationId: run.organizationId, type: status.type, data: status.data },
  ]);
  return true;
}

/**
 * moveActiveRunOnDriver on PostgreSQL, as one statement. An enabled webhook endpoint that lists the event
 * makes it write nothing (its outbox rows go through Prisma): null then, as when not connected yet.
 */
async function moveActiveRunOnPg(
  run: Pick<RunRow, "id" | "organizationId">,
  data: Record<string, unknown>,
  held: readonly EventRow[],
  nextSeq: number | undefined,
  status: { type: WebhookEventType; data: Prisma.InputJsonObject },
): Promise<boolean | null> {
  const { values, param } = pgParams();
  const now = new Date();
  const organization = param(run.organizationId, "text");
  const runId = param(run.id, "text");
  // After held events the number is known; the statement's own inserts are not visible to its MAX().
  const knownSeq = nextSeq ?? (held.length ? held[held.length - 1].seq + 1 : undefined);
  const seq =
    knownSeq !== undefined
      ? param(knownSeq, "int")
      : `COALESCE((SELECT MAX("seq") FROM "RunEvent" WHERE "runId" = ${runId}), 0) + 1`;
  const unsubscribed = `NOT EXISTS (SELECT 1 FROM "subscribed")`;
  const sql = `WITH "subscribed" AS (
      SELECT 1 FROM "WebhookEndpoint" WHERE "organizationId" = ${organization} AND "status" = 'enabled'
        AND "events" @> ${param(JSON.stringify([status.type]), "jsonb")} LIMIT 1
    )${
      held.length
        ? `, "held" AS (
      INSERT INTO "RunEvent" (${EVENT_COLUMNS})
        SELECT * FROM (VALUES ${pgEventTuples(held, param, now).join(", ")}) AS "v" WHERE ${unsubscribed}
    )`
        : ""
    }, "moved" AS (
      UPDATE "Run" SET ${pgRunSets(data, param, now)}
        WHERE "id" = ${runId} AND "organizationId" = ${organization} AND "status" = 'active'
          AND "leaseOwner" = ${param(INSTANCE_ID, "text")} AND ${unsubscribed}
        RETURNING "id"
    ), "event" AS (
      INSERT INTO "RunEvent" (${EVENT_COLUMNS})
        SELECT ${runId}, ${seq}, ${organization}, ${param(status.type, "text")}, ${param(JSON.stringify(status.data), "jsonb")}, ${param(now, "timestamp")}
        FROM "moved"
    )
    SELECT EXISTS (SELECT 1 FROM "subscribed") AS "subscribed", EXISTS (SELECT 1 FROM "moved") AS "moved"`;
  const rows = await driverRows<{ subscribed: boolean; moved: boolean }>({ sql, values });
  if (!rows || rows[0].subscribed) return null;
  return rows[0].moved;
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
  const status = { type, data: event as unknown as Prisma.InputJsonObject };
  const onDriver =
    provider === "postgresql"
      ? await seqChecked(() => moveActiveRunOnPg(run, data, rows, nextSeq, status))
      : await runTransaction(() => moveActiveRunOnDriver(run, data, rows, nextSeq, status));
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
