import "server-only";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { db, isUniqueViolation, type DbOrTx } from "@/lib/db";
import { WatchedCache } from "@/lib/db/changes";
import { ApiError } from "@/lib/http/errors";
import { afterCursor } from "@/lib/http/validation";
import { defaultPolicyRules } from "./defaults";
import { PolicyRules, type PolicyRule } from "./rules";

// Versioned policy tables. Every change is a new row; nothing is edited in
// place, so a proposal can always show the version of the rule that applied.

export interface PolicyTable {
  version: number;
  rules: PolicyRule[];
  createdAt: Date;
  createdById: string | null;
  id: string;
}

type PolicyRow = { id: string; version: number; rules: unknown; createdAt: Date; createdById: string | null };

function toTable(row: PolicyRow): PolicyTable {
  // Stored tables were validated when written; parsing again keeps a hand-edited row from deciding anything.
  return {
    id: row.id,
    version: row.version,
    rules: PolicyRules.parse(row.rules),
    createdAt: row.createdAt,
    createdById: row.createdById,
  };
}

const defaultRules = () => PolicyRules.parse(defaultPolicyRules);

// Read on every write decision: kept in process until a PolicyVersion or ShadowPolicy row changes
// (topic "policies", whose triggers are in the migrations), whichever instance changes it.
const liveTables = new WatchedCache<string, PolicyTable>(["policies"], 10_000);

/** The organization's current table; an organization that never had one starts on the defaults (version 1). */
export async function currentPolicy(organizationId: string, tx: DbOrTx = db): Promise<PolicyTable> {
  // Inside a caller's transaction, its own snapshot; outside, the kept table while nothing changed.
  if (tx !== db) return loadCurrentPolicy(organizationId, tx);
  return liveTables.get(organizationId, () => loadCurrentPolicy(organizationId, db));
}

/** Drops the tables this instance keeps, after it changed one and reads it back in the same request. */
export function forgetPolicyTables(): void {
  liveTables.clear();
}

async function loadCurrentPolicy(organizationId: string, tx: DbOrTx): Promise<PolicyTable> {
  const latest = await tx.policyVersion.findFirst({ where: { organizationId }, orderBy: { version: "desc" } });
  if (latest) return toTable(latest);
  try {
    return toTable(
      await tx.policyVersion.create({ data: { organizationId, version: 1, rules: defaultRules(), createdById: null } }),
    );
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // Another request wrote version 1 first: use it.
    const row = await tx.policyVersion.findFirst({ where: { organizationId }, orderBy: { version: "desc" } });
    if (!row) throw error;
    return toTable(row);
  }
}

// Decisions go through ./judge.ts, which evaluates the shadow table beside this one and records both.

/**
 * Publishes a new version. With `baseVersion`, refuses when someone published
 * since the editor loaded the table, instead of silently overwriting their rows.
 */
export async function publishPolicy(
  organizationId: string,
  input: { rules: PolicyRule[]; baseVersion?: number; createdById: string | null; actor: AuditActor },
  /** Runs in the same transaction (promoting a shadow table deletes it there). */
  alongside?: (tx: DbOrTx, version: number) => Promise<void>,
): Promise<PolicyTable> {
  const current = await loadCurrentPolicy(organizationId, db);
  if (input.baseVersion !== undefined && input.baseVersion !== current.version) {
    throw staleVersion(current.version);
  }
  try {
    const published = toTable(
      await db.$transaction(async (tx) => {
        const version = await tx.policyVersion.create({
          data: { organizationId, version: current.version + 1, rules: input.rules, createdById: input.createdById },
        });
        await recordAudit(
          {
            organizationId,
            actor: input.actor,
            action: "policy.published",
            target: { type: "policy", id: String(version.version) },
            details: { version: version.version, rules: input.rules.length },
          },
          tx,
        );
        await alongside?.(tx, version.version);
        return version;
      }),
    );
    forgetPolicyTables();
    return published;
  } catch (error) {
    if (isUniqueViolation(error)) throw staleVersion(current.version + 1);
    throw error;
  }
}

function staleVersion(version: number) {
  return new ApiError(
    "policy_version_conflict",
    `The policy changed meanwhile (now version ${version}): reload it and apply your change again.`,
    {
      reason: { current_version: version },
    },
  );
}

export async function listPolicyVersions(
  organizationId: string,
  query: { limit: number; cursor?: string },
): Promise<PolicyTable[]> {
  const rows = await db.policyVersion.findMany({
    where: { organizationId, ...afterCursor(query.cursor) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit + 1,
  });
  return rows.map(toTable);
}

export async function getPolicyVersion(organizationId: string, version: number): Promise<PolicyTable> {
  const row = await db.policyVersion.findFirst({ where: { organizationId, version } });
  if (!row) throw new ApiError("not_found", `Policy version ${version} not found.`);
  return toTable(row);
}
