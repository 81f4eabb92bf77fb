import "server-only";
import type { Principal } from "@/lib/auth/principal";
import { db, provider, type DbOrTx } from "@/lib/db";
import type { DriverStatement } from "@/lib/db/driver";
import { newId } from "@/lib/ids";
import { AuditDetails, type AuditAction } from "./schemas";

export type AuditActor =
  | { type: "member"; id: string; label?: string | null }
  | { type: "api_key"; id: string; label?: string | null }
  | { type: "system" }
  | { type: "anonymous"; label?: string | null };

export interface AuditEventInput {
  /** Null only for what belongs to no organization (a sign-in attempt on an unknown e-mail). */
  organizationId: string | null;
  actor: AuditActor;
  action: AuditAction;
  target?: { type: string; id: string } | null;
  details?: AuditDetails;
}

/** Guichet itself: the demo seed, benchmarks, scheduled work. */
export const SYSTEM_ACTOR: AuditActor = { type: "system" };

/** The actor of a /v1 request. */
export function actorOf(principal: Principal): AuditActor {
  return principal.kind === "member"
    ? { type: "member", id: principal.memberId, label: principal.email || null }
    : { type: "api_key", id: principal.apiKeyId };
}

/**
 * Records one event. Pass the caller's transaction: the event is written if and
 * only if the change it describes is. Details are checked (names and small
 * facts only); a bad one is a programming error and throws.
 */
export async function recordAudit(input: AuditEventInput, tx: DbOrTx = db): Promise<void> {
  const details = AuditDetails.parse(input.details ?? {});
  const actor = input.actor;
  await tx.auditEvent.create({
    data: {
      id: newId("aud"),
      organizationId: input.organizationId,
      actorType: actor.type,
      actorId: "id" in actor ? actor.id : null,
      actorLabel: "label" in actor ? (actor.label ?? null) : null,
      action: input.action,
      targetType: input.target?.type ?? null,
      targetId: input.target?.id ?? null,
      details,
      // Explicit, so the trigger's date comparisons read one format on SQLite.
      createdAt: new Date(),
    },
  });
}

/**
 * The same event as one statement, for a transaction on the driver (lib/db/driver.ts
 * `driverTransaction`): the row `recordAudit` writes, column for column.
 */
export function auditStatement(input: AuditEventInput, now = new Date()): DriverStatement {
  const details = AuditDetails.parse(input.details ?? {});
  const actor = input.actor;
  const jsonb = provider === "postgresql" ? "::jsonb" : "";
  return {
    sql: `INSERT INTO "AuditEvent" ("id", "organizationId", "actorType", "actorId", "actorLabel", "action", "targetType",
      "targetId", "details", "createdAt") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9${jsonb}, $10)`,
    values: [
      newId("aud"),
      input.organizationId,
      actor.type,
      "id" in actor ? actor.id : null,
      "label" in actor ? (actor.label ?? null) : null,
      input.action,
      input.target?.type ?? null,
      input.target?.id ?? null,
      JSON.stringify(details),
      now,
    ],
  };
}
