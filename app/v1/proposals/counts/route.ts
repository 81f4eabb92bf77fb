import { countProposalsEndpoint } from "@/lib/proposals/api";
import { countPending } from "@/lib/proposals/list";
import { handle } from "@/lib/http/handler";

// GET /v1/proposals/counts — how many proposals wait for a decision (the navigation badge)
export const GET = handle(countProposalsEndpoint, async ({ principal }) => ({
  data: { pending: await countPending(principal.organizationId) },
}));
