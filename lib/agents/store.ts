import "server-only";
import type { auditStatement } from "@/lib/audit/record";
import { Prisma, provider } from "@/lib/db";
import type { DriverStatement, DriverWork } from "@/lib/db/driver";
import { ApiError, notFound } from "@/lib/http/errors";

export const agentSelect = {
  id: true,
  name: true,
  instructions: true,
  modelId: true,
  temperatureCenti: true,
  tools: true,
  active: true,
  outputSchema: true,
  clientTools: true,
  trace: true,
  createdAt: true,
  updatedAt: true,
} as const;
export type AgentRow = Prisma.AgentGetPayload<{ select: typeof agentSelect }>;

export const quotaExceeded = (maxAgents: number) =>
  new ApiError("quota_exceeded", `Your plan allows ${maxAgents} agents.`, {
    reason: { quota: "agents", limit: maxAgents },
  });

// An agent's row, and its creation and change as transactions on the driver (lib/db/driver.ts
// `driverTransaction`): through Prisma, the transaction's five or six small statements were most of
// the request's CPU (docs/hot-path-profile.md). They write and answer what the Prisma queries of
// lib/agents/service.ts (used when the driver cannot serve) do: tests/api/db-driver.test.ts compares
// the stored rows of both.

/** A field of `agentData`'s result as the column holds it: JSON as text, no Prisma marker. */
function columnValue(column: string, value: unknown): unknown {
  if (value === Prisma.DbNull || value === null) return null;
  return column === "tools" || column === "clientTools" || column === "outputSchema" ? JSON.stringify(value) : value;
}

const jsonColumns = new Set(["tools", "clientTools", "outputSchema"]);
const placeholder = (column: string, index: number) =>
  `$${index}${provider === "postgresql" && jsonColumns.has(column) ? "::jsonb" : ""}`;

const agentColumns = Object.keys(agentSelect)
  .map((column) => `"${column}"`)
  .join(", ");

/** `$n` placeholders moved up by `by`, to follow another statement's in one text. */
function shifted(sql: string, by: number): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + by}`);
}

export function* createOnDriver(
  organizationId: string,
  row: AgentRow,
  audit: (row: AgentRow) => ReturnType<typeof auditStatement>,
): DriverWork<AgentRow> {
  // SQLite's transaction holds the write lock from its start; PostgreSQL's takes the organization's row, as
  // lockOrganization does, and only then counts (each statement of the transaction reads what committed before it).
  if (provider === "postgresql")
    yield { sql: `UPDATE "Organization" SET "name" = "name" WHERE "id" = $1`, values: [organizationId] };
  const [plan] = yield {
    sql: `SELECT p."maxAgents",
      (SELECT COUNT(*)${provider === "postgresql" ? "::int" : ""} FROM "Agent" WHERE "organizationId" = $1) AS "count"
      FROM "Organization" o JOIN "Plan" p ON p."id" = o."planId" WHERE o."id" = $2`,
    values: [organizationId, organizationId],
  };
  if (!plan) throw notFound();
  const maxAgents = Number(plan.maxAgents);
  if (Number(plan.count) >= maxAgents) throw quotaExceeded(maxAgents);
  const columns = ["organizationId", ...Object.keys(agentSelect)];
  const record: Record<string, unknown> = { organizationId, ...row };
  const insert = {
    sql: `INSERT INTO "Agent" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map((c, i) => placeholder(c, i + 1)).join(", ")})`,
    values: columns.map((c) => columnValue(c, record[c])),
  };
  const event = audit(row);
  if (provider === "postgresql") {
    // One round trip for both rows, while the organization's row is locked.
    yield {
      sql: `WITH "agent" AS (${insert.sql} RETURNING "id") ${shifted(event.sql, insert.values.length)}`,
      values: [...insert.values, ...event.values],
    };
  } else {
    yield insert;
    yield event;
  }
  return row;
}

/**
 * PostgreSQL: the change and its audit event in one statement (atomic without a transaction), the event
 * naming the agent as the update left it. Answers the row, or none when the agent is gone.
 */
export function updateStatementPg(
  agentId: string,
  data: Record<string, unknown>,
  now: Date,
  event: ReturnType<typeof auditStatement>,
): DriverStatement {
  const changed = Object.entries(data);
  const sets = [
    ...changed.map(([column], i) => `"${column}" = ${placeholder(column, i + 1)}`),
    `"updatedAt" = $${changed.length + 1}`,
  ];
  const first = changed.length + 2;
  // The event's columns as auditStatement writes them, its details' name taken from the updated row.
  const columns = /^INSERT INTO "AuditEvent" \(([^)]*)\)/.exec(event.sql)![1];
  // Typed: values selected for an insert take no type from its columns.
  const values = event.values.map((_, i) =>
    i === 8
      ? `jsonb_set($${first + 1 + i}::jsonb, '{name}', to_jsonb("agent"."name"))`
      : `$${first + 1 + i}::${i === 9 ? "timestamp(3)" : "text"}`,
  );
  return {
    sql: `WITH "agent" AS (UPDATE "Agent" SET ${sets.join(", ")} WHERE "id" = $${first} RETURNING ${agentColumns}),
      "event" AS (INSERT INTO "AuditEvent" (${columns}) SELECT ${values.join(", ")} FROM "agent")
      SELECT * FROM "agent"`,
    values: [...changed.map(([column, value]) => columnValue(column, value)), now, agentId, ...event.values],
  };
}

export function* updateOnDriver(
  agentId: string,
  data: Record<string, unknown>,
  now: Date,
  audit: (row: AgentRow) => ReturnType<typeof auditStatement>,
): DriverWork<AgentRow> {
  const changed = Object.entries(data);
  const sets = [
    ...changed.map(([column], i) => `"${column}" = ${placeholder(column, i + 1)}`),
    `"updatedAt" = $${changed.length + 1}`,
  ];
  yield {
    sql: `UPDATE "Agent" SET ${sets.join(", ")} WHERE "id" = $${changed.length + 2}`,
    values: [...changed.map(([column, value]) => columnValue(column, value)), now, agentId],
  };
  const [row] = yield { sql: `SELECT ${agentColumns} FROM "Agent" WHERE "id" = $1`, values: [agentId] };
  if (!row) throw notFound("Agent");
  const agent = row as unknown as AgentRow;
  yield audit(agent);
  return agent;
}
