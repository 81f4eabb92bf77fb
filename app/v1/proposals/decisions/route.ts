import { ApiError } from "@/lib/http/errors";
import { handle } from "@/lib/http/handler";
import { decideProposalsEndpoint } from "@/lib/proposals/api";
import { proposalContext } from "@/lib/proposals/context";
import { decideProposals } from "@/lib/proposals/decisions";
import { serializeProposal } from "@/lib/proposals/serialize";

// POST /v1/proposals/decisions — several decisions at once, one result per proposal
export const POST = handle(decideProposalsEndpoint, async ({ principal, body }) => {
  if (principal.kind !== "member") throw new ApiError("forbidden", "Only a signed-in person can decide.");
  const outcomes = await decideProposals(principal, body.decisions, body.reason);
  const decided = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.row] : []));
  const context = await proposalContext(principal.organizationId, decided);
  return {
    data: outcomes.map((outcome) =>
      outcome.ok
        ? { proposal: outcome.proposal, ok: true as const, data: serializeProposal(outcome.row, context) }
        : {
            proposal: outcome.proposal,
            ok: false as const,
            error: { code: outcome.error.code, message: outcome.error.message },
          },
    ),
  };
});
