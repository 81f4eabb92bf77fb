import { updatePasswordEndpoint } from "@/lib/members/api";
import { changeOwnPassword, managerOf } from "@/lib/members/service";
import { handle } from "@/lib/http/handler";

// PUT /v1/members/me/password — change your own password (any signed-in member)
export const PUT = handle(updatePasswordEndpoint, async ({ principal, body }) => {
  await changeOwnPassword(managerOf(principal), { current: body.current_password, next: body.new_password });
  return { data: { changed: true as const } };
});
