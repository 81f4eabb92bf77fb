import { approveProposalEndpoint } from "@/lib/proposals/api";
import { proposalContext } from "@/lib/proposals/context";
import { serializeProposal } from "@/lib/proposals/serialize";
import { approveProposal } from "@/lib/proposals/decisions";
import { ApiError } from "@/lib/http/errors";
import { handle } from "@/lib/http/handler";

// POST /v1/proposals/{proposal}/approve — approve the exact hash shown (signed-in people only)
export const POST = handle(approveProposalEndpoint, async ({ principal, params, body }) => {
  if (principal.kind !== "member") throw new ApiError("forbidden", "Only a signed-in person can approve.");
  const proposal = await approveProposal(principal, params.proposal, body.arguments_sha256, body.note);
  return { data: serializeProposal(proposal, await proposalContext(principal.organizationId, [proposal])) };
});
