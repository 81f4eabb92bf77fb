import { ApiError } from "@/lib/http/errors";
import { handle } from "@/lib/http/handler";
import type { Principal } from "@/lib/auth/principal";
import { getMyPreferencesEndpoint, updateMyPreferencesEndpoint } from "@/lib/preferences/api";
import { getPreferences, updatePreferences } from "@/lib/preferences/service";

// Session only: the member is always the one signed in, never one named in the request.
function memberOf(principal: Principal): string {
  if (principal.kind !== "member") throw new ApiError("forbidden", "Preferences belong to a signed-in member.");
  return principal.memberId;
}

// GET /v1/me/preferences
export const GET = handle(getMyPreferencesEndpoint, async ({ principal }) => ({
  data: await getPreferences(memberOf(principal)),
}));

// PATCH /v1/me/preferences — {approval_emails}
export const PATCH = handle(updateMyPreferencesEndpoint, async ({ principal, body }) => ({
  data: await updatePreferences(memberOf(principal), body),
}));
