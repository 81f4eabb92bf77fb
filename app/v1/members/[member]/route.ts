import { deleteMemberEndpoint, updateMemberEndpoint } from "@/lib/members/api";
import { managerOf, removeMember, serializeMember, updateMember } from "@/lib/members/service";
import { handle } from "@/lib/http/handler";

// PATCH /v1/members/{member} — change a role, deactivate or reactivate (owner and admin)
export const PATCH = handle(updateMemberEndpoint, async ({ principal, params, body }) => ({
  data: serializeMember(await updateMember(managerOf(principal), params.member, body)),
}));

// DELETE /v1/members/{member} — remove a member (owner and admin)
export const DELETE = handle(deleteMemberEndpoint, async ({ principal, params }) => {
  await removeMember(managerOf(principal), params.member);
  return { data: { id: params.member, deleted: true as const } };
});
