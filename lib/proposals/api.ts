import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import {
  ApproveBody,
  BatchDecisionBody,
  BatchDecisionResult,
  ProposalListQuery,
  ProposalObject,
  ProposalParams,
  RefuseBody,
  RevisionForm,
  ReviseBody,
} from "./schemas";

export * from "./schemas";

const readScopes = ["runs:read"] as const;
const decisionErrors = [
  "not_found",
  "proposal_expired",
  "proposal_not_pending",
  "proposal_superseded",
  "proposal_revised",
  "approver_not_authorized",
  "already_decided",
] as const;

export const listProposalsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/proposals",
  tag: "Proposals",
  summary: "Proposals of the organization, filtered by status and run",
  auth: "both",
  scopes: [...readScopes],
  query: ProposalListQuery,
  response: z.object({ data: z.array(ProposalObject), next_cursor: z.string().nullable() }),
});

export const countProposalsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/proposals/counts",
  tag: "Proposals",
  summary: "How many proposals wait for a decision",
  auth: "both",
  scopes: [...readScopes],
  response: z.object({ data: z.object({ pending: z.number().int() }) }),
});

export const getProposalEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/proposals/{proposal}",
  tag: "Proposals",
  summary: "One proposal: the canonical change, its rule and its decisions",
  auth: "both",
  scopes: [...readScopes],
  params: ProposalParams,
  response: z.object({ data: ProposalObject }),
  errors: ["not_found"],
});

export const approveProposalEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/proposals/{proposal}/approve",
  tag: "Proposals",
  summary: "Approve the exact change shown (signed-in people only)",
  auth: "session",
  params: ProposalParams,
  body: ApproveBody,
  response: z.object({ data: ProposalObject }),
  errors: [...decisionErrors, "self_approval_forbidden", "arguments_hash_mismatch", "agent_deleted"],
});

export const refuseProposalEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/proposals/{proposal}/refuse",
  tag: "Proposals",
  summary: "Refuse a proposal with a reason (signed-in people only)",
  auth: "session",
  params: ProposalParams,
  body: RefuseBody,
  response: z.object({ data: ProposalObject }),
  errors: [...decisionErrors],
});

// Signed-in people who may decide on the proposal only. The arguments go through the tool's contract and the
// service's preview again; the answer is the new proposal (its own rule and approvals; `supersedes` names this
// one, closed as `revised`). Whoever revises counts as a requester for the four-eyes rule.
export const reviseProposalEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/proposals/{proposal}/revise",
  tag: "Proposals",
  summary: "Correct the arguments: the service previews them again and a new proposal replaces this one",
  auth: "session",
  params: ProposalParams,
  body: ReviseBody,
  status: 201,
  response: z.object({ data: ProposalObject }),
  errors: [...decisionErrors, "revision_invalid", "revision_unchanged", "policy_denied", "service_unavailable"],
});

export const getProposalRevisionFormEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/proposals/{proposal}/revise",
  tag: "Proposals",
  summary: "What a revision edits: the tool whose input it is, its input schema and the current arguments",
  auth: "session",
  params: ProposalParams,
  response: z.object({ data: RevisionForm }),
  errors: ["not_found"],
});

// Several decisions in one request: each is checked against its own hash, rule, expiry and rights and answered
// on its own line, in the order sent; partial success is normal (200 with a result per proposal).
export const decideProposalsEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/proposals/decisions",
  tag: "Proposals",
  summary: "Approve or refuse several proposals at once, one result per proposal (signed-in people only)",
  auth: "session",
  body: BatchDecisionBody,
  response: z.object({ data: z.array(BatchDecisionResult) }),
});
