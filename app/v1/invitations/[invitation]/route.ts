import { revokeInvitationEndpoint } from "@/lib/members/api";
import { revokeInvitation, serializeInvitation } from "@/lib/members/invitations";
import { managerOf } from "@/lib/members/service";
import { handle } from "@/lib/http/handler";

// DELETE /v1/invitations/{invitation} — revoke a pending invitation (owner and admin)
export const DELETE = handle(revokeInvitationEndpoint, async ({ principal, params }) => ({
  data: serializeInvitation(await revokeInvitation(managerOf(principal), params.invitation)),
}));
