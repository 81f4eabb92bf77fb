import { getProposalEndpoint } from "@/lib/proposals/api";
import { proposalContext } from "@/lib/proposals/context";
import { serializeProposal } from "@/lib/proposals/serialize";
import { getProposal } from "@/lib/proposals/service";
import { handle } from "@/lib/http/handler";

// GET /v1/proposals/{proposal} — one proposal as stored: the canonical change, its rule, its decisions
export const GET = handle(getProposalEndpoint, async ({ principal, params }) => {
  const proposal = await getProposal(principal.organizationId, params.proposal);
  return { data: serializeProposal(proposal, await proposalContext(principal.organizationId, [proposal])) };
});
