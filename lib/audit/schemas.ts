import { z } from "zod";
import { ListQuery } from "@/lib/http/list-query";

// The audit trail's zod schemas and types: safe for the browser (no server import).

/** Every action the trail records, with its label in the console. A new action is added here. */
export const auditActionLabels = {
  "sign_in.succeeded": "Connexion réussie",
  "sign_in.failed": "Connexion refusée",
  "api_key.created": "Clé API créée",
  "api_key.revoked": "Clé API révoquée",
  "member.invited": "Membre invité",
  "invitation.accepted": "Invitation acceptée",
  "invitation.revoked": "Invitation annulée",
  "member.role_changed": "Rôle modifié",
  "member.deactivated": "Membre désactivé",
  "member.reactivated": "Membre réactivé",
  "member.removed": "Membre retiré",
  "member.password_changed": "Mot de passe modifié",
  "policy.published": "Politique publiée",
  "policy.shadow_published": "Politique publiée en mode fantôme",
  "policy.shadow_promoted": "Politique fantôme mise en service",
  "policy.shadow_dropped": "Politique fantôme abandonnée",
  "proposal.escalated": "Proposition escaladée",
  "connector.created": "Connecteur créé",
  "connector.synced": "Connecteur synchronisé",
  "connector.reviewed": "Outil de connecteur examiné",
  "connector.updated": "Connecteur modifié",
  "connector.token_changed": "Jeton de connecteur modifié",
  "connector.deleted": "Connecteur supprimé",
  "mcp_connection.connected": "Connexion personnelle à un connecteur établie",
  "mcp_connection.refresh_failed": "Connexion personnelle à renouveler",
  "mcp_connection.disconnected": "Connexion personnelle à un connecteur retirée",
  "agent.created": "Agent créé",
  "agent.updated": "Agent modifié",
  "agent.deleted": "Agent supprimé",
  "proposal.approved": "Proposition approuvée",
  "proposal.refused": "Proposition refusée",
  "proposal.revised": "Proposition révisée avant approbation",
  "operation.resolved": "Opération résolue",
  "webhook_endpoint.created": "Webhook créé",
  "webhook_endpoint.updated": "Webhook modifié",
  "webhook_endpoint.deleted": "Webhook supprimé",
  "webhook_endpoint.secret_rotated": "Secret de webhook renouvelé",
  "webhook_endpoint.enabled": "Webhook réactivé",
  "webhook_endpoint.disabled": "Webhook désactivé",
  "organization.created": "Organisation créée",
  "oauth_client.registered": "Application enregistrée (OAuth)",
  "oauth_client.deleted": "Application supprimée (OAuth)",
  "oauth_grant.created": "Application autorisée (OAuth)",
  "oauth_grant.revoked": "Autorisation d'application révoquée",
  "oauth_grant.refresh_reused": "Jeton de rafraîchissement réutilisé : autorisation révoquée",
  "widget.created": "Widget créé",
  "widget.updated": "Widget modifié",
  "widget.deleted": "Widget supprimé",
  "widget.public_key_rotated": "Clé publique de widget renouvelée",
  "widget.secret_rotated": "Secret de signature de widget renouvelé",
} as const;

export const auditActions = Object.keys(auditActionLabels) as [AuditAction, ...AuditAction[]];
export type AuditAction = keyof typeof auditActionLabels;
export const AuditAction = z.enum(auditActions);

export const auditActorTypes = ["member", "api_key", "system", "anonymous"] as const;
export const AuditActorType = z.enum(auditActorTypes);
export type AuditActorType = z.infer<typeof AuditActorType>;

/**
 * What an event may say beyond who, what and which: field names and small facts
 * (a role, a count, a decision). Short strings only, so a secret or an
 * instruction text cannot ride along unnoticed.
 */
export const AuditDetails = z
  .record(
    z.string().regex(/^[a-z][a-z0-9_]{0,39}$/),
    z.union([z.string().max(254), z.number(), z.boolean(), z.null(), z.array(z.string().max(100)).max(50)]),
  )
  .refine((value) => Object.keys(value).length <= 20, "at most 20 details");
export type AuditDetails = z.infer<typeof AuditDetails>;

const isoDate = z.iso.datetime({ offset: true }).transform((value) => new Date(value));

/** What the list and the export filter on. */
const auditFilters = {
  action: AuditAction.optional(),
  actor: z.string().min(1).max(64).optional(),
  target_type: z
    .string()
    .regex(/^[a-z_]{1,40}$/)
    .optional(),
  target: z.string().min(1).max(200).optional(),
  from: isoDate.optional(),
  to: isoDate.optional(),
};

export const AuditListQuery = ListQuery.extend(auditFilters);
export const AuditExportQuery = z.strictObject(auditFilters);
export type AuditFilters = z.infer<typeof AuditExportQuery>;
export type AuditListQuery = z.infer<typeof AuditListQuery>;

export const AuditEventObject = z.object({
  id: z.string(),
  action: z.string(),
  actor: z.object({
    type: AuditActorType,
    id: z.string().nullable(),
    /** The member's e-mail (or the key's name) when it acted: still readable once they are gone. */
    label: z.string().nullable(),
  }),
  target: z.object({ type: z.string(), id: z.string() }).nullable(),
  details: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});
export type AuditEventObject = z.infer<typeof AuditEventObject>;
