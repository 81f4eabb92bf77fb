import { z } from "zod";

export const Scope = z.enum([
  "agents:read",
  "agents:write",
  "runs:read",
  "runs:write",
  "files:read",
  "files:write",
  "tools:read",
]);
export type Scope = z.infer<typeof Scope>;
export const allScopes = Scope.options;

export const Role = z.enum(["owner", "admin", "developer", "approver", "viewer"]);
export type Role = z.infer<typeof Role>;

/** Who manages the organization: its settings, connectors, members, webhooks, audit trail. */
export const MANAGER_ROLES = ["owner", "admin"] as const satisfies readonly Role[];
export const isManager = (role: Role): boolean => (MANAGER_ROLES as readonly Role[]).includes(role);

export const roleLabels: Record<Role, string> = {
  owner: "Propriétaire",
  admin: "Administrateur",
  developer: "Développeur",
  approver: "Approbateur",
  viewer: "Lecteur",
};

const readScopes: Scope[] = ["agents:read", "runs:read", "files:read", "tools:read"];

/** What a signed-in person may do through the same handlers as an API key. */
export function scopesForRole(role: Role): Scope[] {
  return isManager(role) || role === "developer" ? [...allScopes] : readScopes;
}

/** `required` lists alternatives: any one of them is enough (agents:read OR runs:read). */
export function hasAnyScope(granted: readonly string[], required: readonly Scope[]): boolean {
  return required.length === 0 || required.some((scope) => granted.includes(scope));
}
