import "server-only";
import { recordAudit } from "@/lib/audit/record";
import { findContract } from "@/lib/contracts/registry";
import { checkAgainst } from "@/lib/contracts/schema";
import type { Contract } from "@/lib/contracts/types";
import { db, isUniqueViolation, Prisma } from "@/lib/db";
import { validateArguments } from "./dispatch";
import { previewForRevision } from "@/lib/dispatch/revision-preview";
import { ToolError } from "@/lib/executors";
import { ApiError } from "@/lib/http/errors";
import { judge, recordJudgement } from "@/lib/policies/judge";
import { capabilitySetOf, getRun } from "@/lib/runs/service";
import { log } from "@/lib/log";
import { resumeRunAtExpiry } from "@/lib/runs/waiting";
import { recordProposalCreated } from "@/lib/webhooks/events";
import { assertDecidable, type Approver } from "./decisions";
import {
  changesNothing,
  draftFromArguments,
  draftFromPreview,
  DraftError,
  policyFacts,
  topLevelField,
  type ProposalDraft,
} from "./draft";
import { argumentChanges } from "./revision-diff";
import { getProposal, markExpired, newProposalData, proposalInclude, type ProposalRow } from "./service";
import { dedupeKeyOf, effectiveStatus } from "./state";

// A person corrects an agent's write instead of refusing it. The corrected
// arguments go through the same trusted path an agent's do — the tool's
// contract, then the service's own preview (which re-reads the record: a
// target changed meanwhile yields a proposal at its new version) — and the
// result is a new proposal under its own rule, replacing the old one (closed
// as `revised`, never committable). The reviser counts as a requester for the
// four-eyes rule. Nothing is stored when any step refuses.

/** A tool's refusal of the revised arguments, as the API's typed error. */
function refused(error: ToolError): ApiError {
  if (error.retryable)
    return new ApiError("service_unavailable", `The service could not preview the revision: ${error.message}`, {
      reason: { tool_error: error.code },
    });
  return new ApiError("revision_invalid", `The revised arguments were refused: ${error.message}`, {
    errors: [{ field: `/arguments${error.field ?? ""}`, code: error.code, message: error.message }],
    reason: { tool_error: error.code, ...(error.upstreamCode ? { upstream_code: error.upstreamCode } : {}) },
  });
}

/** The arguments a person edits: the preview's input for a previewed write, else the write's own (engine fields aside). */
export function revisableArguments(
  proposal: Pick<ProposalRow, "arguments">,
  commit: Contract,
): Record<string, unknown> {
  const engine = new Set(
    [topLevelField(commit.target?.version_pointer), commit.idempotency?.key_field].filter(Boolean) as string[],
  );
  const args = proposal.arguments as Record<string, unknown>;
  // A previewed write's version comes from the preview; a write without one keeps what its caller sent.
  if (!commit.preview) return { ...args };
  return Object.fromEntries(Object.entries(args).filter(([name]) => !engine.has(name)));
}

async function draftOf(proposal: ProposalRow, commit: Contract, args: Record<string, unknown>): Promise<ProposalDraft> {
  const run = await getRun(proposal.organizationId, proposal.runId);
  try {
    if (!commit.preview) {
      validateArguments(commit, args);
      return draftFromArguments(commit, args);
    }
    const granted = capabilitySetOf(run).find((entry) => entry.key === commit.preview);
    const preview = granted && (await findContract(run.organizationId, granted.key, granted.version));
    if (!preview || preview.retired)
      throw new ApiError("revision_invalid", `The preview tool ${commit.preview} is no longer in this run.`);
    const result = await previewForRevision(run, preview.contract, args, AbortSignal.timeout(60_000));
    const draft = draftFromPreview(commit, result);
    const sent = {
      ...draft.arguments,
      ...(commit.idempotency ? { [commit.idempotency.key_field]: "guichet-placeholder-key" } : {}),
    };
    const broken = checkAgainst(commit.input_schema, sent, commit.kind === "mcp" ? "lenient" : "strict");
    if (broken) throw new DraftError(`the previewed arguments would not pass ${commit.key}'s input schema`);
    return draft;
  } catch (error) {
    if (error instanceof ToolError) throw refused(error);
    if (error instanceof DraftError)
      throw new ApiError("revision_invalid", `The service's preview cannot become a proposal: ${error.message}`);
    throw error;
  }
}

/** POST /v1/proposals/{proposal}/revise — a person's corrected arguments become a new proposal replacing this one. */
export async function reviseProposal(
  reviser: Approver,
  proposalId: string,
  args: Record<string, unknown>,
): Promise<ProposalRow> {
  const now = new Date();
  const proposal = await getProposal(reviser.organizationId, proposalId);
  if (effectiveStatus(proposal, now) === "expired") await markExpired(proposal.id);
  assertDecidable(proposal, reviser, now);
  const registered = await findContract(proposal.organizationId, proposal.tool, proposal.toolVersion);
  if (!registered) throw new ApiError("revision_invalid", `${proposal.tool}@${proposal.toolVersion} is gone.`);
  const commit = registered.contract;
  const draft = await draftOf(proposal, commit, args);
  if (
    (proposal.targetType !== null || draft.target !== null) &&
    (draft.target?.type !== proposal.targetType || draft.target?.id !== proposal.targetId)
  )
    throw new ApiError("revision_invalid", "A revision changes the write, not the record it is about.", {
      errors: [{ field: "/arguments", code: "target_changed", message: "The revised write targets another record." }],
    });
  if (draft.argumentsSha256 === proposal.argumentsSha256 || changesNothing(draft))
    throw new ApiError("revision_unchanged", "The revised arguments change nothing: approve or refuse as it is.");
  const judgement = await judge(proposal.organizationId, policyFacts(commit, draft));
  const policy = judgement.live;
  const judged = { organizationId: proposal.organizationId, tool: commit, runId: proposal.runId, stepId: null };
  if (policy.decision === "deny") await recordJudgement(judgement, { ...judged, proposalId: null });
  if (policy.decision === "deny")
    throw new ApiError("policy_denied", `The policy rule "${policy.rule}" forbids the revised write.`, {
      reason: { rule: policy.rule, policy_version: policy.policy_version },
    });
  const diff = argumentChanges(proposal.arguments, draft.arguments);
  const input = {
    organizationId: proposal.organizationId,
    runId: proposal.runId,
    tool: { key: commit.key, version: commit.version },
    draft,
    policy,
    requestedBy: proposal.requestedBy,
    requestedByApiKeyId: proposal.requestedByApiKeyId,
  };
  let revision: ProposalRow;
  try {
    revision = await db.$transaction(async (tx) => {
      const closed = await tx.proposal.updateMany({
        where: { id: proposal.id, status: "pending", expiresAt: { gt: new Date() } },
        data: { status: "revised", dedupeKey: null },
      });
      if (closed.count === 0) {
        assertDecidable(
          await tx.proposal.findUniqueOrThrow({ where: { id: proposal.id }, include: proposalInclude }),
          reviser,
          new Date(),
        );
        throw new ApiError("proposal_not_pending", "This proposal was decided meanwhile.");
      }
      const created = await tx.proposal.create({
        data: {
          ...newProposalData(input, dedupeKeyOf(proposal.runId, commit.key, draft.argumentsSha256), now),
          supersedes: proposal.id,
          revisedBy: reviser.memberId,
          revisionChanges: diff as unknown as Prisma.InputJsonArray,
        },
        include: proposalInclude,
      });
      await tx.proposal.update({ where: { id: proposal.id }, data: { supersededBy: created.id } });
      await recordProposalCreated(tx, created, created.status);
      // Which fields, never their values: the arguments stay out of the audit trail.
      await recordAudit(
        {
          organizationId: reviser.organizationId,
          actor: { type: "member", id: reviser.memberId, label: reviser.email ?? null },
          action: "proposal.revised",
          target: { type: "proposal", id: proposal.id },
          details: {
            tool: proposal.tool,
            revision: created.id,
            fields: diff.map((change) => change.field),
            rule: policy.rule,
            arguments_sha256: created.argumentsSha256,
          },
        },
        tx,
      );
      return created;
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw new ApiError("revision_unchanged", "This run already has a proposal with exactly these arguments.");
    throw error;
  }
  await recordJudgement(judgement, { ...judged, proposalId: revision.id });
  await resumeRunAtExpiry(revision.organizationId, revision.runId, revision).catch((error: unknown) =>
    log("error", "run.resume_enqueue_failed", {
      run: revision.runId,
      error: error instanceof Error ? error.name : "unknown",
    }),
  );
  return revision;
}

/** GET /v1/proposals/{proposal}/revise — the tool whose input a revision is, its schema and the current values. */
export async function revisionForm(organizationId: string, proposalId: string) {
  const proposal = await getProposal(organizationId, proposalId);
  const registered = await findContract(organizationId, proposal.tool, proposal.toolVersion);
  if (!registered) throw new ApiError("not_found", "The proposal's tool is no longer registered.");
  const commit = registered.contract;
  let tool = commit;
  if (commit.preview) {
    const run = await getRun(organizationId, proposal.runId);
    const granted = capabilitySetOf(run).find((entry) => entry.key === commit.preview);
    const preview = granted && (await findContract(organizationId, granted.key, granted.version));
    if (!preview) throw new ApiError("not_found", "The proposal's preview tool is no longer in its run.");
    tool = preview.contract;
  }
  const schema = { ...(tool.input_schema as Record<string, unknown>) };
  // The engine fills the idempotency key: a person never types one.
  const keyField = commit.idempotency?.key_field;
  if (!commit.preview && keyField && typeof schema.properties === "object" && schema.properties) {
    const { [keyField]: _key, ...properties } = schema.properties as Record<string, unknown>;
    schema.properties = properties;
    if (Array.isArray(schema.required)) schema.required = schema.required.filter((name) => name !== keyField);
  }
  return { tool: `${tool.key}@${tool.version}`, input_schema: schema, arguments: revisableArguments(proposal, commit) };
}
