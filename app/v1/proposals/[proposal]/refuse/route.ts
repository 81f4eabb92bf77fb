import { refuseProposalEndpoint } from "@/lib/proposals/api";
import { proposalContext } from "@/lib/proposals/context";
import { serializeProposal } from "@/lib/proposals/serialize";
import { refuseProposal } from "@/lib/proposals/decisions";
import { ApiError } from "@/lib/http/errors";
import { handle } from "@/lib/http/handler";

// POST /v1/proposals/{proposal}/refuse — refuse with a reason (signed-in people only)
export const POST = handle(refuseProposalEndpoint, async ({ principal, params, body }) => {
  if (principal.kind !== "member") throw new ApiError("forbidden", "Only a signed-in person can refuse.");
  const proposal = await refuseProposal(
    principal,
    params.proposal,
    body.reason,
    body.share_reason_with_requester === true,
  );
  return { data: serializeProposal(proposal, await proposalContext(principal.organizationId, [proposal])) };
});
