import "server-only";
import { provider } from "@/lib/db";
import { driverRows, recordRows, sqliteTransaction, type DriverStatement } from "@/lib/db/driver";
import {
  chainedCounterSteps,
  chainedCounts,
  forgetEndedWindows,
  incrementStatement,
  redisClient,
  windowStartOf,
  type ChainedCounter,
} from "@/lib/http/rate-limit";
import { RunOutput } from "@/lib/runs/schemas";

// What a visitor message needs from the database before its run starts, in as
// few round trips as the database allows, on the driver under Prisma
// (lib/db/driver.ts): the client address's share, whether the conversation is
// the visitor's, the visitor's and the conversation's counters, and the
// conversation so far. The counters are the rows `hitExactly` and
// `hitChainExactly` (lib/http/rate-limit.ts) write — same key, same window,
// same statement — so every path and every instance counts in one place, each
// hit one shared increment (exact under concurrent requests). On SQLite: one
// synchronous transaction on Prisma's connection. On PostgreSQL: one statement
// (its data-modifying parts run in order, each counter only if the one before
// it is within its limit, the message's counters only if the conversation is
// the visitor's) beside one read of the conversation so far; the counts are
// written as a record (lib/db/driver.ts, as a tool call's counters): seen by
// every instance at their commit, which waits for no disk flush — a crash of
// the database server can forget the last fraction of a second of counts,
// never count one twice. With Redis (REDIS_URL) the counters live there: the
// caller takes them one by one. The message itself is stored in the
// transaction that opens its run (visitorMessageStatements).

export type TurnCounter = ChainedCounter;

export interface TurnRequest {
  /** Always taken: the client address's share of the public surface. */
  address: TurnCounter;
  conversation: { id: string; organizationId: string; widgetId: string; visitorId: string };
  /**
   * Taken in order, after the address's share, only when it is within its limit and the conversation is the
   * visitor's; none when the message is refused anyway (an invalid body, an unavailable widget).
   */
  message: readonly TurnCounter[];
}

export interface TurnOutcome {
  /** The address's count, then each message counter's; null for one not taken. */
  counts: (number | null)[];
  /** Whether the conversation is the visitor's (in this widget and organization). */
  found: boolean;
  /** The conversation so far, oldest first: each visitor message and its run's answer. */
  history: { role: "user" | "assistant"; content: string }[];
}

/** A stored message with its run's output, as the history statement answers it. */
interface HistoryRow {
  content: string;
  output: unknown;
}

function historyOf(rows: HistoryRow[]): TurnOutcome["history"] {
  return rows.flatMap((row) => {
    const answer =
      RunOutput.nullable()
        .catch(null)
        .parse(row.output ?? null)?.text ?? null;
    return [
      { role: "user" as const, content: row.content },
      ...(answer ? [{ role: "assistant" as const, content: answer }] : []),
    ];
  });
}

const HISTORY = `SELECT "m"."content", "r"."output" FROM "WidgetMessage" AS "m"
  LEFT JOIN "Run" AS "r" ON "r"."id" = "m"."runId" AND "r"."organizationId" = "m"."organizationId"
  WHERE "m"."organizationId" = $1 AND "m"."conversationId" = $2
  ORDER BY "m"."createdAt" ASC, "m"."id" ASC`;

const CONVERSATION = `SELECT "id" FROM "WidgetConversation"
  WHERE "id" = $1 AND "organizationId" = $2 AND "widgetId" = $3 AND "visitorId" = $4`;

function sqliteTurn(turn: TurnRequest, now: number): TurnOutcome | null {
  return sqliteTransaction((tx) => {
    const increment = (counter: TurnCounter) => {
      const [row] = tx.rows<{ count: number }>(
        incrementStatement(counter.key, windowStartOf(counter.windowMs, now), counter.windowMs),
      );
      return Number(row.count);
    };
    const { conversation } = turn;
    const counts: (number | null)[] = [increment(turn.address)];
    const found =
      tx.rows({
        sql: CONVERSATION,
        values: [conversation.id, conversation.organizationId, conversation.widgetId, conversation.visitorId],
      }).length > 0;
    let within = counts[0]! <= turn.address.limit && found;
    for (const counter of turn.message) {
      const count = within ? increment(counter) : null;
      counts.push(count);
      within = count !== null && count <= counter.limit;
    }
    const history = found
      ? historyOf(tx.rows<HistoryRow>({ sql: HISTORY, values: [conversation.organizationId, conversation.id] }))
      : [];
    return { counts, found, history };
  });
}

/**
 * The PostgreSQL statement: the visitor's conversation (`conv`), then the address's counter and the message's,
 * chained as hitChainExactly's (each only if the one before it is within its limit), the message's first one
 * only if the conversation is the visitor's.
 */
function postgresTurnStatement(turn: TurnRequest, now: number): DriverStatement {
  const values: unknown[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const { conversation } = turn;
  const counters = [turn.address, ...turn.message];
  const parts = [
    `conv AS (SELECT "id" FROM "WidgetConversation" WHERE "id" = CAST(${param(conversation.id)} AS TEXT)
      AND "organizationId" = CAST(${param(conversation.organizationId)} AS TEXT)
      AND "widgetId" = CAST(${param(conversation.widgetId)} AS TEXT)
      AND "visitorId" = CAST(${param(conversation.visitorId)} AS TEXT))`,
    ...chainedCounterSteps(counters, now, param, (i) => (i === 1 ? "EXISTS (SELECT 1 FROM conv)" : "")),
  ];
  const columns = [
    `EXISTS (SELECT 1 FROM conv) AS "found"`,
    ...counters.map((_, i) => `(SELECT "count" FROM c${i}) AS c${i}`),
  ];
  return { sql: `WITH ${parts.join(",\n")} SELECT ${columns.join(", ")}`, values };
}

async function postgresTurn(turn: TurnRequest, now: number): Promise<TurnOutcome | null> {
  const { conversation } = turn;
  // The conversation so far is read beside the counters; it is used only if the conversation is the visitor's.
  const counting = postgresTurnStatement(turn, now);
  const [counted, history] = await Promise.all([
    // Written as a record (lib/db/driver.ts): visible to every instance at its commit, without waiting for
    // the disk (GUICHET_DURABLE_RECORDS=1 waits), as a tool call's counters are.
    recordRows<Record<string, unknown>>(counting).then((rows) => rows ?? driverRows<Record<string, unknown>>(counting)),
    driverRows<HistoryRow>({ sql: HISTORY, values: [conversation.organizationId, conversation.id] }),
  ]);
  if (!counted || !history) return null;
  const [row] = counted;
  const found = row.found === true;
  return {
    counts: chainedCounts(row, 1 + turn.message.length),
    found,
    history: found ? historyOf(history) : [],
  };
}

/**
 * Takes a visitor message's counters and reads its conversation in one go; null when the driver cannot
 * (Redis holds the counters, Prisma has not connected yet, or a Prisma transaction is open on SQLite):
 * the caller then takes them one by one.
 */
export async function openTurn(turn: TurnRequest, now = Date.now()): Promise<TurnOutcome | null> {
  if (redisClient()) return null;
  const outcome = provider === "sqlite" ? sqliteTurn(turn, now) : await postgresTurn(turn, now);
  // Now and then, forget windows that ended long ago, as every increment does (lib/http/rate-limit.ts).
  if (outcome && Math.random() < 0.01) void forgetEndedWindows().catch(() => undefined);
  return outcome;
}

/**
 * The statements that store a visitor message with the run that answers it and move its conversation
 * up: given to the run's opening, so they commit in its transaction (lib/agent-loop/start.ts).
 */
export function visitorMessageStatements(message: {
  id: string;
  organizationId: string;
  conversationId: string;
  content: string;
  runId: string;
}): DriverStatement[] {
  const now = new Date();
  const insert = `INSERT INTO "WidgetMessage" ("id", "organizationId", "conversationId", "content", "runId", "createdAt")
    VALUES ($1, $2, $3, $4, $5, $6)`;
  const values = [message.id, message.organizationId, message.conversationId, message.content, message.runId, now];
  const touch = (first: number) =>
    `UPDATE "WidgetConversation" SET "updatedAt" = $${first} WHERE "id" = $${first + 1} AND "organizationId" = $${first + 2}`;
  const touched = [now, message.conversationId, message.organizationId];
  // PostgreSQL: one statement, one round trip within the opening's transaction.
  return provider === "sqlite"
    ? [
        { sql: insert, values },
        { sql: touch(1), values: touched },
      ]
    : [{ sql: `WITH "message" AS (${insert}) ${touch(7)}`, values: [...values, ...touched] }];
}
