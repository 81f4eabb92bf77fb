import { revokeSessionsEndpoint } from "@/lib/auth/api";
import { endAllSessions } from "@/lib/auth/sessions";
import { handle } from "@/lib/http/handler";

// DELETE /v1/sessions — sign out everywhere (session only)
export const DELETE = handle(revokeSessionsEndpoint, async ({ principal }) => ({
  data: { ended_sessions: principal.kind === "member" ? await endAllSessions(principal.memberId) : 0 },
}));
