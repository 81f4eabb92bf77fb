import { listProposalsEndpoint } from "@/lib/proposals/api";
import { mentionedMembers, serializeProposal } from "@/lib/proposals/serialize";
import { listProposals } from "@/lib/proposals/list";
import { memberNames } from "@/lib/proposals/service";
import { handle } from "@/lib/http/handler";

// GET /v1/proposals — proposals, filtered by status and run, newest first or soonest expiry first
export const GET = handle(listProposalsEndpoint, async ({ principal, query }) => {
  const now = new Date();
  const { rows, nextCursor } = await listProposals(principal.organizationId, {
    limit: query.limit,
    cursor: query.cursor,
    status: query.status,
    run: query.run,
    order: query.order === "expires_at" ? "expires_asc" : "created_desc",
  }, now);
  const names = await memberNames(principal.organizationId, mentionedMembers(rows));
  return { data: rows.map((row) => serializeProposal(row, names, now)), next_cursor: nextCursor };
});
