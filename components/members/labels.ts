import { roleLabels, type Role } from "@/lib/auth/scopes";
import { ApiClientError } from "@/lib/client/errors";

// French wording of the members page: the roles one may grant and the API's refusals.

/** The roles offered in a select: an admin never sees « Propriétaire » (the API would refuse it). */
export function grantableRoles(viewerRole: Role): Role[] {
  const all = Object.keys(roleLabels) as Role[];
  return viewerRole === "owner" ? all : all.filter((role) => role !== "owner");
}

const codeMessages: Record<string, string> = {
  last_owner: "Impossible : c’est le dernier propriétaire. Nommez d’abord un autre propriétaire.",
  owner_role_reserved: "Seul un propriétaire peut donner le rôle de propriétaire ou modifier un propriétaire.",
  email_unavailable: "Cette adresse appartient déjà à un membre : elle ne peut pas être invitée.",
  not_found: "Ce membre ou cette invitation n’existe plus : la liste a été actualisée.",
  forbidden: "Seuls les propriétaires et les administrateurs gèrent les membres.",
};

/** The refusal said in French (the API's own message when no wording is known). */
export function refusalMessage(error: unknown): string {
  if (error instanceof ApiClientError) return codeMessages[error.code] ?? error.message;
  return error instanceof Error ? error.message : "La demande a échoué.";
}

export const dateFormat = new Intl.DateTimeFormat("fr-FR", { dateStyle: "medium", timeStyle: "short" });
