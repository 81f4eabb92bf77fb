import { z } from "zod";
import { ListQuery, statusFilter } from "@/lib/http/list-query";
import { ApproverRole } from "@/lib/policies/rules";
import { proposalStatuses } from "./state";

// Proposals' zod schemas and types: safe for the browser (no server import).

export const ProposalStatus = z.enum(proposalStatuses);

export const ProposalParams = z.strictObject({
  proposal: z.string().regex(/^prop_[0-9a-z]{26}$/, "must be a proposal id (prop_…)"),
});

export const ProposalListQuery = ListQuery.extend({
  status: statusFilter(proposalStatuses).optional(),
  run: z.string().min(1).max(64).optional(),
  /** `expires_at`: soonest expiry first (the inbox); default newest first. */
  order: z.enum(["created_at", "expires_at"]).default("created_at"),
});

const MemberRef = z.object({ id: z.string(), name: z.string().nullable() });

export const DecisionObject = z.object({
  member: MemberRef,
  decision: z.enum(["approve", "refuse"]),
  arguments_sha256: z.string(),
  target_version: z.number().int().nullable(),
  reason: z.string().nullable(),
  share_reason_with_requester: z.boolean().meta({
    description: "A refusal whose reason a widget visitor may read; false for approvals.",
  }),
  created_at: z.string(),
});

/** One field of the change, as stored: the raw key, the name people know it by when the service gave one. */
export const ProposalChange = z.object({
  field: z.string(),
  label: z.string().nullable().meta({
    description:
      "The field's name for people, from the service's preview (or Guichet's describer); null when none was given.",
  }),
  before: z.unknown(),
  after: z.unknown(),
});

/** The `changes` column: older rows have no `label`. */
export const StoredChanges = z.array(ProposalChange.extend({ label: z.string().nullish() }));

export const RequesterObject = z
  .object({
    agent: z
      .object({ id: z.string(), name: z.string() })
      .nullable()
      .meta({ description: "The agent whose run asked; null once the agent was deleted." }),
    run: z.string(),
    source: z.enum(["api_key", "console", "mcp", "widget"]).meta({
      description:
        "How the run was started: with an API key, by a signed-in person, by an MCP client's session, or by a widget's visitor.",
    }),
    api_key: z
      .object({ id: z.string(), name: z.string().nullable() })
      .nullable()
      .meta({ description: "The API key that started the run (name null once the key is gone)." }),
    member: MemberRef.nullable().meta({ description: "The person whose session started the run." }),
    mcp_client: z
      .object({ name: z.string(), version: z.string() })
      .nullable()
      .meta({ description: "The MCP client as it named itself when the session opened." }),
    widget: z
      .object({
        id: z.string(),
        name: z.string().nullable(),
        visitor: z.object({ id: z.string(), name: z.string().nullable(), verified: z.boolean() }).nullable(),
      })
      .nullable()
      .meta({ description: "The widget whose visitor's message started the run (name null once it is deleted)." }),
  })
  .meta({ description: "Who asks for this write: the agent, its run and how that run was started." });
export type RequesterObject = z.infer<typeof RequesterObject>;

export const ProposalObject = z.object({
  id: z.string(),
  run: z.string(),
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  arguments_sha256: z.string(),
  target: z.object({ type: z.string(), id: z.string(), version: z.number().int().nullable() }).nullable(),
  effect: z.string(),
  changes: z.array(ProposalChange),
  recipients: z.array(z.string()).nullable(),
  amount: z.object({ value_minor: z.number().int(), currency: z.string() }).nullable(),
  environment: z.string(),
  records_affected: z.number().int(),
  irreversible: z.boolean(),
  action: z.string().nullable(),
  policy: z.object({
    rule: z.string(),
    description: z.string(),
    policy_version: z.number().int(),
    decision: z.enum(["allow", "require_approval", "deny"]),
    approvals_required: z.number().int(),
    approver_roles: z.array(ApproverRole),
    requester_can_approve: z.boolean(),
    escalate_after_seconds: z.number().int().optional(),
    escalate_to_roles: z.array(ApproverRole).optional(),
  }),
  approvals: z.object({ count: z.number().int(), required: z.number().int() }),
  status: ProposalStatus,
  superseded_by: z.string().nullable().meta({
    description: "The newer proposal that replaced this one when its status is superseded or revised; null otherwise.",
  }),
  supersedes: z.string().nullable().meta({
    description: "The proposal a person revised into this one (closed as revised); null for an agent's own proposal.",
  }),
  revision: z
    .object({
      revised_by: MemberRef,
      changes: z.array(
        z.object({
          field: z.string().meta({ description: "JSON Pointer into the arguments." }),
          before: z.unknown(),
          after: z.unknown(),
        }),
      ),
    })
    .nullable()
    .meta({ description: "Who revised the arguments and what they changed, field by field; null if nobody did." }),
  expires_at: z.string(),
  escalated_at: z.string().nullable().meta({
    description:
      "When the rule's escalation notified its second group (escalate_to_roles) because the proposal was still undecided; null if it did not. The expiry is unchanged.",
  }),
  requested_by: MemberRef.nullable(),
  requester: RequesterObject,
  acts_as: z.object({ member_id: z.string(), email: z.string().nullable() }).nullable().meta({
    description:
      "For a connector that acts as each member: the member whose own credential commits this write (the run's member, whoever approves); null otherwise.",
  }),
  stale: z.boolean().meta({
    description:
      "True while the proposal is pending or approved but another write to its target has landed since the version it was made against: committing it would be refused (VERSION_CONFLICT); refuse it and let the agent propose again.",
  }),
  decisions: z.array(DecisionObject),
  operation: z.string().nullable(),
  consumed_at: z.string().nullable(),
  created_at: z.string(),
});
export type ProposalObject = z.infer<typeof ProposalObject>;

export const ApproveBody = z.strictObject({
  /** The hash of the canonical arguments the approver was shown. */
  arguments_sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be the 64-character hex SHA-256 shown with the proposal"),
  note: z.string().trim().min(1).max(500).optional(),
});

export const ReviseBody = z.strictObject({
  /** The preview tool's input (for a tool with a preview) or the write's own arguments, as the person corrected them. */
  arguments: z.record(z.string(), z.unknown()),
});
export type ReviseBody = z.infer<typeof ReviseBody>;

export const RevisionForm = z.object({
  tool: z.string().meta({ description: "The tool whose input the arguments are: the write's preview, or the write." }),
  input_schema: z.record(z.string(), z.unknown()),
  arguments: z.record(z.string(), z.unknown()),
});
export type RevisionForm = z.infer<typeof RevisionForm>;

export const RefuseBody = z.strictObject({
  reason: z.string().trim().min(1, "a refusal needs a reason the agent can re-plan with").max(500),
  // The reason always goes back to the agent; a widget visitor reads it only when this is true.
  share_reason_with_requester: z.boolean().optional(),
});

const BatchItem = z.discriminatedUnion("decision", [
  z.strictObject({
    proposal: z.string().min(1).max(64),
    decision: z.literal("approve"),
    /** The hash this proposal showed when it was selected: each approval is bound to its own. */
    arguments_sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, "must be the 64-character hex SHA-256 shown with the proposal"),
  }),
  z.strictObject({ proposal: z.string().min(1).max(64), decision: z.literal("refuse") }),
]);

export const BatchDecisionBody = z
  .strictObject({
    decisions: z.array(BatchItem).min(1).max(100),
    /** One reason for every refusal of the batch. */
    reason: z.string().trim().min(1).max(500).optional(),
  })
  .refine((body) => body.reason !== undefined || body.decisions.every((item) => item.decision === "approve"), {
    message: "a refusal needs a reason the agent can re-plan with",
    path: ["reason"],
  })
  .refine((body) => new Set(body.decisions.map((item) => item.proposal)).size === body.decisions.length, {
    message: "each proposal may appear once",
    path: ["decisions"],
  });
export type BatchDecisionBody = z.infer<typeof BatchDecisionBody>;

export const BatchDecisionResult = z.discriminatedUnion("ok", [
  z.object({ proposal: z.string(), ok: z.literal(true), data: ProposalObject }),
  z.object({
    proposal: z.string(),
    ok: z.literal(false),
    error: z.object({ code: z.string(), message: z.string() }),
  }),
]);
export type BatchDecisionResult = z.infer<typeof BatchDecisionResult>;
