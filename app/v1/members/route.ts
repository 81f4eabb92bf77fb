import { listMembersEndpoint } from "@/lib/members/api";
import { listMembers, serializeMember } from "@/lib/members/service";
import { handle } from "@/lib/http/handler";
import { page } from "@/lib/http/validation";

// GET /v1/members — the organization's members (owner and admin, signed in)
export const GET = handle(listMembersEndpoint, async ({ principal, query }) =>
  page(await listMembers(principal.organizationId, query), query.limit, serializeMember),
);
