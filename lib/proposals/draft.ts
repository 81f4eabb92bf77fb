import { z } from "zod";
import { canonicalCopy, canonicalSha256 } from "@/lib/canonical";
import type { Contract } from "@/lib/contracts/types";
import type { PolicyAction, PolicyFacts } from "@/lib/policies/rules";
import { describeArguments } from "./describers";

// A proposal before it is stored: what trusted code says the write will do.
// Two sources only — the service's own preview of the change, or, for a tool
// without a preview, Guichet's describer of that tool's validated arguments.
// Never the agent's summary of what it means to do.

export interface ProposalChange {
  field: string;
  /** How the service names the field to people (« Adresse de livraison »); the raw key stays in `field`. */
  label?: string | null;
  before: unknown;
  after: unknown;
}

export interface ProposalDraft {
  /** Canonical: exactly what the service will receive, the idempotency key aside. */
  arguments: Record<string, unknown>;
  argumentsSha256: string;
  target: { type: string; id: string; version: number | null } | null;
  effect: string;
  changes: ProposalChange[];
  recipients: string[] | null;
  amount: { value_minor: number; currency: string } | null;
  environment: string;
  recordsAffected: number;
  irreversible: boolean;
  action: PolicyAction | null;
  externalMessage: boolean;
}

/** The preview protocol: what a preview tool's result must hold to become a proposal. */
export const PreviewResult = z.object({
  target: z.object({
    type: z.string().min(1).max(100),
    id: z.string().min(1).max(200),
    version: z.number().int().min(0),
  }),
  arguments: z.record(z.string(), z.unknown()),
  effect: z.string().min(1).max(2_000),
  changes: z.array(z.object({ field: z.string().min(1).max(200), before: z.unknown(), after: z.unknown() })).max(200),
  /** Field key → the name people know it by, shown on approval screens. */
  labels: z.record(z.string().min(1).max(200), z.string().trim().min(1).max(200)).optional(),
  environment: z.string().min(1).max(40),
  records_affected: z.number().int().min(0),
  irreversible: z.boolean(),
  recipients: z.array(z.string().max(320)).max(100).optional(),
  amount: z.object({ value_minor: z.number().int(), currency: z.string().regex(/^[A-Z]{3}$/) }).optional(),
});
export type PreviewResult = z.infer<typeof PreviewResult>;

export class DraftError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DraftError";
  }
}

/** "/expected_version" → "expected_version"; only top-level pointers name an argument the engine fills. */
export function topLevelField(pointer: string | null | undefined): string | null {
  if (!pointer || !/^\/[^/]+$/.test(pointer)) return null;
  return pointer.slice(1).replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Own keys only: a field named `constructor` has no label, not Object's. */
function labelOf(labels: Record<string, string> | undefined, field: string): string | null {
  return labels && Object.hasOwn(labels, field) ? labels[field] : null;
}

function withHash(draft: Omit<ProposalDraft, "argumentsSha256">): ProposalDraft {
  const args = canonicalCopy(draft.arguments);
  return { ...draft, arguments: args, argumentsSha256: canonicalSha256(args) };
}

/**
 * From the service's preview: its canonical arguments, plus the target version
 * the commit will expect — so the hash an approver sees binds the version too.
 */
export function draftFromPreview(commit: Contract, raw: unknown): ProposalDraft {
  const parsed = PreviewResult.safeParse(raw);
  if (!parsed.success)
    throw new DraftError(
      `The preview does not follow the proposal protocol (${parsed.error.issues[0]?.path.join("/") || "/"}).`,
    );
  const preview = parsed.data;
  const args: Record<string, unknown> = { ...preview.arguments };
  const versionField = topLevelField(commit.target?.version_pointer);
  if (versionField) args[versionField] = preview.target.version;
  const idField = topLevelField(commit.target?.id_pointer);
  if (idField && args[idField] !== preview.target.id)
    throw new DraftError("The preview's target is not the record its arguments name.");
  return withHash({
    arguments: args,
    target: { type: preview.target.type, id: preview.target.id, version: preview.target.version },
    effect: preview.effect,
    changes: preview.changes.map((change) => ({ ...change, label: labelOf(preview.labels, change.field) })),
    recipients: preview.recipients ?? null,
    amount: preview.amount ?? null,
    environment: preview.environment,
    recordsAffected: preview.records_affected,
    irreversible: preview.irreversible,
    action: preview.amount ? "payment" : "update",
    externalMessage: Boolean(preview.recipients?.length),
  });
}

/** From a tool without a preview: its validated arguments, described by Guichet's own code for that tool. */
export function draftFromArguments(contract: Contract, args: Record<string, unknown>): ProposalDraft {
  const keyField = contract.idempotency?.key_field;
  const sent = Object.fromEntries(Object.entries(args).filter(([name]) => name !== keyField));
  const described = describeArguments(contract.mcp?.tool ?? contract.key, sent);
  const idField = topLevelField(contract.target?.id_pointer);
  const versionField = topLevelField(contract.target?.version_pointer);
  const targetId = idField ? described.arguments[idField] : undefined;
  const targetVersion = versionField ? described.arguments[versionField] : undefined;
  return withHash({
    ...described,
    target:
      contract.target && typeof targetId === "string"
        ? {
            type: contract.target.type,
            id: targetId,
            version: typeof targetVersion === "number" ? targetVersion : null,
          }
        : described.target,
  });
}

/**
 * Whether a previewed write would change nothing: every field's canonical
 * (RFC 8785) before equals its after, and the write neither moves money nor
 * sends a message. Only a preview knows the before; a write described from its
 * arguments alone (before unknown, shown null) is never a no-op.
 */
export function changesNothing(draft: ProposalDraft): boolean {
  if (draft.amount || draft.recipients?.length || draft.changes.length === 0) return false;
  return draft.changes.every(
    (change) => canonicalSha256([change.before ?? null]) === canonicalSha256([change.after ?? null]),
  );
}

/** The facts the policy engine decides on. */
export function policyFacts(contract: Pick<Contract, "key" | "effect">, draft: ProposalDraft): PolicyFacts {
  return {
    tool: contract.key,
    effect: contract.effect,
    environment: draft.environment,
    action: draft.action,
    amount: draft.amount,
    records_affected: draft.recordsAffected,
    irreversible: draft.irreversible,
    external_message: draft.externalMessage,
  };
}
