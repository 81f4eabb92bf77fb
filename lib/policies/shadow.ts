import "server-only";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { db, isUniqueViolation, type DbOrTx } from "@/lib/db";
import { WatchedCache } from "@/lib/db/changes";
import { ApiError } from "@/lib/http/errors";
import { afterCursor } from "@/lib/http/validation";
import { newId } from "@/lib/ids";
import { PolicyRules, type PolicyRule } from "./rules";
import { currentPolicy, forgetPolicyTables, publishPolicy, type PolicyTable } from "./service";

// Shadow mode: one draft table per organization, evaluated beside the live one
// on every write decision (./judge.ts) and enforcing nothing. Each decision it
// would have taken otherwise is written down; the table is then promoted to a
// new live version in one step, or dropped. The unique organization key keeps
// it to one at a time, even when two people publish together.

export interface ShadowTable {
  id: string;
  rules: PolicyRule[];
  baseVersion: number;
  createdAt: Date;
  createdById: string | null;
}

type ShadowRow = { id: string; rules: unknown; baseVersion: number; createdAt: Date; createdById: string | null };

const toShadow = (row: ShadowRow): ShadowTable => ({
  id: row.id,
  rules: PolicyRules.parse(row.rules),
  baseVersion: row.baseVersion,
  createdAt: row.createdAt,
  createdById: row.createdById,
});

// Read beside the live table on every write decision, so kept the same way (topic "policies");
// "no shadow" is kept too, as most organizations have none and must not pay a query for it.
const shadowTables = new WatchedCache<string, { table: ShadowTable | null }>(["policies"], 10_000);

async function loadShadow(organizationId: string, tx: DbOrTx): Promise<ShadowTable | null> {
  const row = await tx.shadowPolicy.findUnique({ where: { organizationId } });
  return row ? toShadow(row) : null;
}

export async function currentShadow(organizationId: string): Promise<ShadowTable | null> {
  return (await shadowTables.get(organizationId, async () => ({ table: await loadShadow(organizationId, db) }))).table;
}

function forget() {
  shadowTables.clear();
  forgetPolicyTables();
}

function noShadow() {
  return new ApiError("not_found", "There is no shadow policy table.");
}

export async function publishShadow(
  organizationId: string,
  input: { rules: PolicyRule[]; createdById: string | null; actor: AuditActor },
): Promise<ShadowTable> {
  const live = await currentPolicy(organizationId);
  try {
    const row = await db.$transaction(async (tx) => {
      const created = await tx.shadowPolicy.create({
        data: {
          id: newId("shp"),
          organizationId,
          rules: input.rules,
          baseVersion: live.version,
          createdById: input.createdById,
        },
      });
      await recordAudit(
        {
          organizationId,
          actor: input.actor,
          action: "policy.shadow_published",
          target: { type: "policy_shadow", id: created.id },
          details: { base_version: live.version, rules: input.rules.length },
        },
        tx,
      );
      return created;
    });
    forget();
    return toShadow(row);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const existing = await loadShadow(organizationId, db);
    throw new ApiError(
      "shadow_policy_exists",
      "A shadow policy table is already being evaluated: promote it or drop it before publishing another.",
      { reason: { shadow: existing?.id ?? null } },
    );
  }
}

/** Makes the shadow table the live one (a new version number) and ends shadow mode, in one transaction. */
export async function promoteShadow(
  organizationId: string,
  input: { baseVersion?: number; createdById: string | null; actor: AuditActor },
): Promise<PolicyTable> {
  const shadow = await loadShadow(organizationId, db);
  if (!shadow) throw noShadow();
  const published = await publishPolicy(
    organizationId,
    { rules: shadow.rules, baseVersion: input.baseVersion, createdById: input.createdById, actor: input.actor },
    async (tx, version) => {
      // Only the shadow that was read: one dropped or replaced meanwhile undoes the whole promotion.
      const removed = await tx.shadowPolicy.deleteMany({ where: { id: shadow.id, organizationId } });
      if (removed.count !== 1) throw noShadow();
      await recordAudit(
        {
          organizationId,
          actor: input.actor,
          action: "policy.shadow_promoted",
          target: { type: "policy_shadow", id: shadow.id },
          details: { version },
        },
        tx,
      );
    },
  );
  forget();
  return published;
}

export async function dropShadow(organizationId: string, actor: AuditActor): Promise<void> {
  await db.$transaction(async (tx) => {
    const shadow = await tx.shadowPolicy.findUnique({ where: { organizationId }, select: { id: true } });
    const removed = shadow ? await tx.shadowPolicy.deleteMany({ where: { id: shadow.id, organizationId } }) : null;
    if (!shadow || removed?.count !== 1) throw noShadow();
    await recordAudit(
      {
        organizationId,
        actor,
        action: "policy.shadow_dropped",
        target: { type: "policy_shadow", id: shadow.id },
        details: {},
      },
      tx,
    );
  });
  forget();
}

/** The differing decisions recorded for the current shadow table, newest first, and their counts. */
export async function shadowDifferences(organizationId: string, query: { limit: number; cursor?: string }) {
  const shadow = await loadShadow(organizationId, db);
  if (!shadow) throw noShadow();
  const where = { organizationId, shadowId: shadow.id };
  const [rows, groups] = await Promise.all([
    db.shadowDifference.findMany({
      where: { ...where, ...afterCursor(query.cursor) },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: query.limit + 1,
    }),
    db.shadowDifference.groupBy({ by: ["tool", "kind"], where, _count: { _all: true } }),
  ]);
  const counts = groups
    .map((group) => ({ tool: group.tool, kind: group.kind, count: group._count._all }))
    .sort((a, b) => b.count - a.count || a.tool.localeCompare(b.tool) || a.kind.localeCompare(b.kind));
  return { shadow, rows, counts };
}
