import "server-only";
import { db, isUniqueViolation, Prisma, type DbOrTx } from "@/lib/db";
import { notFound } from "@/lib/http/errors";
import { newId } from "@/lib/ids";
import { PolicyOutcome } from "@/lib/policies/rules";
import { recordProposalCreated, recordProposalMoved } from "@/lib/webhooks/events";
import { z } from "zod";
import type { ProposalDraft } from "./draft";
import { dedupeKeyOf, effectiveStatus, type ProposalStatus } from "./state";

// Stored proposals: created only from a draft made by trusted code, found
// again (not duplicated) when the same run previews the same change, and
// moved between states only by conditional writes.

export const proposalInclude = { decisions: { orderBy: { createdAt: "asc" as const } } } as const;
export type ProposalRow = Prisma.ProposalGetPayload<{ include: typeof proposalInclude }>;

/** What the proposal keeps of the policy: the outcome, plus the facts it was decided on. */
export const StoredPolicy = PolicyOutcome.extend({ action: z.string().nullable(), external_message: z.boolean() });
export type StoredPolicy = z.infer<typeof StoredPolicy>;

export function storedPolicy(row: Pick<ProposalRow, "policy">): StoredPolicy {
  return StoredPolicy.parse(row.policy);
}

export interface NewProposal {
  organizationId: string;
  runId: string;
  tool: { key: string; version: number };
  draft: ProposalDraft;
  policy: PolicyOutcome;
  /** The person who asked: the member who made the call, or the creator of the key that made it. */
  requestedBy: string | null;
  /** The API key that made the call, when a key made it. */
  requestedByApiKeyId: string | null;
}

/**
 * Stores the proposal, or finds the one the same run already made for the same
 * change. An `allow` decision needs nobody: the proposal is approved at once.
 * A new proposal for the same target supersedes the run's older pending ones.
 */
export async function createProposal(
  input: NewProposal,
  now = new Date(),
): Promise<{ proposal: ProposalRow; created: boolean }> {
  const dedupeKey = dedupeKeyOf(input.runId, input.tool.key, input.draft.argumentsSha256);
  // Proposals this call moved to superseded to make room for the new one: they name it once it exists.
  const replaced: string[] = [];
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      return { proposal: await insert(input, dedupeKey, now, replaced), created: true };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const holder = await db.proposal.findUnique({ where: { dedupeKey }, include: proposalInclude });
    if (!holder) continue;
    const status = effectiveStatus(holder, now);
    if (status === "expired") {
      await markExpired(holder.id);
      continue;
    }
    if ((status === "pending" || status === "approved") && (await commitFailedFinally(holder.id))) {
      // Its commit was refused for good (or an operator found it not applied): a new card, a new approval.
      const moved = await db.proposal.updateMany({
        where: { id: holder.id, status },
        data: { status: "superseded", dedupeKey: null },
      });
      if (moved.count === 1) replaced.push(holder.id);
      continue;
    }
    return { proposal: holder, created: false };
  }
  throw new Error("Could not store the proposal: its change kept being proposed concurrently.");
}

/** The row of a new proposal (an agent's, or a person's revision of one, which adds its own fields). */
export function newProposalData(input: NewProposal, dedupeKey: string, now: Date) {
  const { draft, policy } = input;
  const stored: StoredPolicy = { ...policy, action: draft.action, external_message: draft.externalMessage };
  return {
    id: newId("prop"),
    organizationId: input.organizationId,
    runId: input.runId,
    tool: input.tool.key,
    toolVersion: input.tool.version,
    arguments: draft.arguments as Prisma.InputJsonObject,
    argumentsSha256: draft.argumentsSha256,
    targetType: draft.target?.type ?? null,
    targetId: draft.target?.id ?? null,
    targetVersion: draft.target?.version ?? null,
    effect: draft.effect,
    changes: draft.changes as unknown as Prisma.InputJsonArray,
    recipients: draft.recipients ?? Prisma.DbNull,
    amountValueMinor: draft.amount?.value_minor ?? null,
    amountCurrency: draft.amount?.currency ?? null,
    environment: draft.environment,
    recordsAffected: draft.recordsAffected,
    irreversible: draft.irreversible,
    policy: stored as unknown as Prisma.InputJsonObject,
    status: policy.decision === "allow" ? "approved" : "pending",
    expiresAt: new Date(now.getTime() + policy.ttl_seconds * 1000),
    // The expiry stays what the rule says: escalation only tells more people before it.
    escalateAt:
      policy.decision === "require_approval" && policy.escalate_after_seconds !== undefined
        ? new Date(now.getTime() + policy.escalate_after_seconds * 1000)
        : null,
    requestedBy: input.requestedBy,
    requestedByApiKeyId: input.requestedByApiKeyId,
    dedupeKey,
  } satisfies Prisma.ProposalUncheckedCreateInput;
}

async function insert(input: NewProposal, dedupeKey: string, now: Date, replaced: string[]): Promise<ProposalRow> {
  return db.$transaction(async (tx) => {
    const proposal = await tx.proposal.create({
      data: newProposalData(input, dedupeKey, now),
      include: proposalInclude,
    });
    if (replaced.length > 0)
      await tx.proposal.updateMany({
        where: { id: { in: replaced }, supersededBy: null },
        data: { supersededBy: proposal.id },
      });
    if (input.draft.target) await supersedeOlder(tx, proposal);
    await recordProposalCreated(tx, proposal, proposal.status);
    return proposal;
  });
}

/**
 * A newer preview of the same target replaces the run's older cards still
 * waiting for a decision, so nobody approves a change the agent moved on from.
 * An approved proposal stays: it is a person's decision on exactly its change.
 */
async function supersedeOlder(tx: DbOrTx, proposal: ProposalRow): Promise<void> {
  await tx.proposal.updateMany({
    where: {
      runId: proposal.runId,
      tool: proposal.tool,
      targetType: proposal.targetType,
      targetId: proposal.targetId,
      id: { not: proposal.id },
      status: "pending",
    },
    data: { status: "superseded", dedupeKey: null, supersededBy: proposal.id },
  });
}

async function commitFailedFinally(proposalId: string): Promise<boolean> {
  const operations = await db.operation.findMany({ where: { proposalId }, select: { status: true } });
  return operations.length > 0 && operations.every((op) => op.status === "failed" || op.status === "cancelled");
}

/** Writes down an expiry the clock already decided, and its event (once: only the write that moves it records it). */
export async function markExpired(id: string, tx?: DbOrTx): Promise<void> {
  const expire = async (client: DbOrTx) => {
    const moved = await client.proposal.updateMany({
      where: { id, status: { in: ["pending", "approved"] } },
      data: { status: "expired", dedupeKey: null },
    });
    if (moved.count === 1)
      await recordProposalMoved(client, await client.proposal.findUniqueOrThrow({ where: { id } }), "proposal.expired");
  };
  await (tx ? expire(tx) : db.$transaction(expire));
}

/** Proposals whose expiry passed as of `now` but that are not written down as expired yet. */
export const expiryDue = (now: Date): Prisma.ProposalWhereInput => ({
  status: { in: ["pending", "approved"] },
  expiresAt: { lte: now },
});

/** Writes down the expiries the clock decided that nobody looked at yet, so their event goes out on time. */
export async function expireDue(now = new Date(), limit = 100): Promise<number> {
  const due = await db.proposal.findMany({
    where: expiryDue(now),
    select: { id: true },
    orderBy: { expiresAt: "asc" },
    take: limit,
  });
  for (const { id } of due) await markExpired(id);
  return due.length;
}

export async function getProposal(organizationId: string, id: string, tx: DbOrTx = db): Promise<ProposalRow> {
  const proposal = await tx.proposal.findFirst({ where: { id, organizationId }, include: proposalInclude });
  if (!proposal) throw notFound("Proposal");
  return proposal;
}

/** The `where` for proposals whose status, as of `now`, is one of `statuses`. */
export function statusFilter(statuses: readonly ProposalStatus[], now: Date): Prisma.ProposalWhereInput {
  const live = (status: "pending" | "approved") => ({ status, expiresAt: { gt: now } });
  const parts: Prisma.ProposalWhereInput[] = statuses.flatMap((status): Prisma.ProposalWhereInput[] => {
    if (status === "pending" || status === "approved") return [live(status)];
    if (status === "expired")
      return [{ status: "expired" }, { status: { in: ["pending", "approved"] }, expiresAt: { lte: now } }];
    return [{ status }];
  });
  return { OR: parts };
}
