import { revokeSessionsEndpoint } from "@/lib/auth/api";
import { endAllSessions } from "@/lib/auth/sessions";
import { handle } from "@/lib/http/handler";
import { revokeGrantsOfMember } from "@/lib/oauth/grants";

// DELETE /v1/sessions — sign out everywhere (session only): the applications connected by OAuth too.
export const DELETE = handle(revokeSessionsEndpoint, async ({ principal }) => {
  if (principal.kind !== "member") return { data: { ended_sessions: 0 } };
  await revokeGrantsOfMember(principal.memberId, "signed_out");
  return { data: { ended_sessions: await endAllSessions(principal.memberId) } };
});
