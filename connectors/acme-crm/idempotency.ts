import { randomBytes } from "node:crypto";
import { argumentsSha256 } from "./canonical";
import { ToolError, type ToolErrorBody } from "./errors";
import type { Store } from "./store";

export const newId = (prefix: string, bytes = 8) => `${prefix}${randomBytes(bytes).toString("hex")}`;

export interface IdempotentOutcome<T> {
  result: T;
  /** true when the stored result of an earlier call with the same key was returned. */
  replayed: boolean;
}

/**
 * Runs one write under the idempotency protocol, in ONE immediate transaction:
 *   1. look up the key: same tool + same canonical arguments → the stored
 *      outcome (result or recorded error), nothing written again; otherwise
 *      IDEMPOTENCY_KEY_REUSED (nothing recorded);
 *   2. run the write (inside a savepoint);
 *   3. store key + arguments hash + result in the same transaction.
 * A business refusal (NOT_FOUND, VERSION_CONFLICT, AMOUNT_EXCEEDS_REMAINING…)
 * rolls the write back to the savepoint, so no business data changes, and is
 * recorded as a final `failed` outcome for the key (the status tool can report
 * it). Only `INTERNAL_ERROR`s are not recorded: the caller may retry them.
 */
export function runIdempotent<T>(
  store: Store,
  tool: string,
  idempotencyKey: string,
  canonicalArgs: Record<string, unknown>,
  write: (operationId: string, now: string) => T,
): IdempotentOutcome<T> {
  const db = store.db;
  const hash = argumentsSha256(canonicalArgs);
  const tx = db.transaction((): { ok: true; value: IdempotentOutcome<T> } | { ok: false; error: ToolError } => {
    const existing = store.getOperation(idempotencyKey);
    if (existing) {
      if (existing.tool !== tool || existing.arguments_sha256 !== hash) {
        return {
          ok: false,
          error: new ToolError(
            "IDEMPOTENCY_KEY_REUSED",
            `Clé d’idempotence déjà utilisée par ${existing.tool} avec d’autres arguments`,
            { field: "/idempotency_key" },
          ),
        };
      }
      if (existing.status === "succeeded") return { ok: true, value: { result: existing.result as T, replayed: true } };
      return { ok: false, error: ToolError.fromBody(existing.error as ToolErrorBody) };
    }
    const operationId = newId("op_");
    const now = new Date().toISOString();
    const insert = db.prepare(
      `INSERT INTO operations (idempotency_key, operation_id, tool, arguments_sha256, status, result, error, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    try {
      const result = db.transaction(() => write(operationId, now))(); // savepoint
      insert.run(idempotencyKey, operationId, tool, hash, "succeeded", JSON.stringify(result), null, now);
      return { ok: true, value: { result, replayed: false } };
    } catch (e) {
      if (!(e instanceof ToolError) || e.code === "INTERNAL_ERROR" || e.code === "INVALID_ARGUMENTS") throw e;
      insert.run(idempotencyKey, operationId, tool, hash, "failed", null, JSON.stringify(e.toBody()), now);
      return { ok: false, error: e };
    }
  });
  const outcome = tx.immediate();
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}
