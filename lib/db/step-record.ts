import "server-only";
import { recordWrite } from "./driver";
import type { StepRecord as StepRow } from "@/lib/runs/steps";
import type { counterRow } from "@/lib/telemetry/service";
import { db, provider } from "./index";

type CounterRow = ReturnType<typeof counterRow>;

// A tool call's record, written on the path of every call: the statements live
// here, beside their Prisma fallback; lib/dispatch/record.ts decides what the
// rows hold.

/**
 * The step and its counters, written together, in one round trip where the
 * database allows it: one statement on PostgreSQL (the step inserted in a
 * WITH clause, the counters upserted by the statement itself), one
 * transaction on SQLite (in process). The counters are the ones
 * countTelemetry adds to (lib/telemetry/service.ts). On the driver as a
 * record (`recordWrite` in ./driver.ts), Prisma's batch when it cannot be used.
 */
export async function insertStepWithCounters(step: StepRow, counters: CounterRow[], now: Date): Promise<void> {
  const debugPayload = step.debugPayload === null ? null : JSON.stringify(step.debugPayload);
  const stepValues = [
    step.id,
    step.runId,
    step.organizationId,
    step.tool,
    step.version,
    step.status,
    step.errorCode,
    step.errorField,
    step.durationMs,
    step.argumentsSha256,
    step.retries,
    debugPayload,
    step.apiKeyId,
    step.memberId,
    now,
  ];
  const counterValues = counters.flatMap((c) => [
    c.organizationId,
    c.bucket,
    c.metric,
    c.tool,
    c.version,
    c.code,
    c.field,
    c.count,
  ]);
  const jsonb = provider === "postgresql" ? "::jsonb" : "";
  // $1…$15 the step, then eight values per counter.
  const insertStep = `INSERT INTO "Step" ("id", "runId", "organizationId", "tool", "version", "status", "errorCode",
    "errorField", "durationMs", "argumentsSha256", "retries", "debugPayload", "apiKeyId", "memberId", "createdAt")
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12${jsonb}, $13, $14, $15)`;
  const placeholders = (first: number) =>
    counters.map((_, i) => `(${Array.from({ length: 8 }, (_, j) => `$${first + i * 8 + j}`).join(", ")})`).join(", ");
  const upsertCounters = (first: number) => `
    INSERT INTO "TelemetryCounter" ("organizationId", "bucket", "metric", "tool", "version", "code", "field", "count")
    VALUES ${placeholders(first)}
    ON CONFLICT ("organizationId", "bucket", "metric", "tool", "version", "code", "field")
    DO UPDATE SET "count" = "TelemetryCounter"."count" + excluded."count"`;
  const statements =
    provider === "postgresql"
      ? [{ sql: `WITH "step" AS (${insertStep}) ${upsertCounters(16)}`, values: [...stepValues, ...counterValues] }]
      : [
          { sql: insertStep, values: stepValues },
          { sql: upsertCounters(1), values: counterValues },
        ];
  if (await recordWrite(statements)) return;
  if (provider === "postgresql") {
    await db.$executeRawUnsafe(statements[0].sql, ...statements[0].values);
    return;
  }
  await db.$transaction(statements.map((s) => db.$executeRawUnsafe(s.sql.replace(/\$\d+/g, "?"), ...s.values)));
}
