import { ApiError } from "@/lib/http/errors";
import { handle } from "@/lib/http/handler";
import { reviseProposalEndpoint, getProposalRevisionFormEndpoint } from "@/lib/proposals/api";
import { proposalContext } from "@/lib/proposals/context";
import { reviseProposal, revisionForm } from "@/lib/proposals/revise";
import { serializeProposal } from "@/lib/proposals/serialize";

// GET /v1/proposals/{proposal}/revise — what a revision edits (the form's schema and prefilled arguments)
export const GET = handle(getProposalRevisionFormEndpoint, async ({ principal, params }) => {
  if (principal.kind !== "member") throw new ApiError("forbidden", "Only a signed-in person can revise.");
  return { data: await revisionForm(principal.organizationId, params.proposal) };
});

// POST /v1/proposals/{proposal}/revise — corrected arguments become a new proposal that replaces this one
export const POST = handle(reviseProposalEndpoint, async ({ principal, params, body }) => {
  if (principal.kind !== "member") throw new ApiError("forbidden", "Only a signed-in person can revise.");
  const proposal = await reviseProposal(principal, params.proposal, body.arguments);
  return { data: serializeProposal(proposal, await proposalContext(principal.organizationId, [proposal])) };
});
