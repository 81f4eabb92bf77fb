import { listProposalsEndpoint } from "@/lib/proposals/api";
import { proposalContext } from "@/lib/proposals/context";
import { serializeProposal } from "@/lib/proposals/serialize";
import { listProposals } from "@/lib/proposals/list";
import { handle } from "@/lib/http/handler";

// GET /v1/proposals — proposals, filtered by status and run, newest first or soonest expiry first
export const GET = handle(listProposalsEndpoint, async ({ principal, query }) => {
  const now = new Date();
  const { rows, nextCursor } = await listProposals(
    principal.organizationId,
    {
      limit: query.limit,
      cursor: query.cursor,
      status: query.status,
      run: query.run,
      order: query.order === "expires_at" ? "expires_asc" : "created_desc",
    },
    now,
  );
  const context = await proposalContext(principal.organizationId, rows, now);
  return { data: rows.map((row) => serializeProposal(row, context, now)), next_cursor: nextCursor };
});
