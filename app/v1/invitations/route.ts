import { createInvitationEndpoint, listInvitationsEndpoint } from "@/lib/members/api";
import {
  createInvitation,
  invitationUrl,
  listInvitations,
  mailInvitation,
  serializeInvitation,
} from "@/lib/members/invitations";
import { managerOf } from "@/lib/members/service";
import { handle } from "@/lib/http/handler";
import { page } from "@/lib/http/validation";

// GET /v1/invitations — invitations, newest first (owner and admin)
export const GET = handle(listInvitationsEndpoint, async ({ principal, query }) =>
  page(await listInvitations(principal.organizationId, query), query.limit, serializeInvitation),
);

// POST /v1/invitations — invite by e-mail; the link is returned once (and e-mailed when SMTP is configured)
export const POST = handle(createInvitationEndpoint, async ({ principal, body, request }) => {
  const { invitation, token } = await createInvitation(managerOf(principal), body);
  const url = invitationUrl(request, token);
  return { data: { ...serializeInvitation(invitation), url, emailed: await mailInvitation(invitation, url) } };
});
