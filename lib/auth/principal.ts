import type { Role, Scope } from "./scopes";

/** Who is calling: a signed-in member (console) or an API key. Same handlers, same rules. */
export type Principal =
  | { kind: "member"; organizationId: string; memberId: string; email: string; role: Role; scopes: Scope[] }
  | { kind: "apiKey"; organizationId: string; apiKeyId: string; scopes: Scope[] };

/** The stable id of the caller, for idempotency records and rate limits. */
export function principalId(principal: Principal): string {
  return principal.kind === "member" ? principal.memberId : principal.apiKeyId;
}
