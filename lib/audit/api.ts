import { MANAGER_ROLES } from "@/lib/auth/scopes";
import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { isoOffset } from "@/lib/time";
import { AuditActorType, AuditEventObject, AuditExportQuery, AuditListQuery } from "./schemas";

export * from "./schemas";

/** A stored row as the list reads it (lib/audit/service.ts). */
export interface AuditEventRow {
  id: string;
  actorType: string;
  actorId: string | null;
  actorLabel: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: unknown;
  createdAt: Date;
}

export function serializeAuditEvent(row: AuditEventRow): AuditEventObject {
  return {
    id: row.id,
    action: row.action,
    actor: { type: AuditActorType.catch("system").parse(row.actorType), id: row.actorId, label: row.actorLabel },
    target: row.targetType && row.targetId ? { type: row.targetType, id: row.targetId } : null,
    details: (row.details as Record<string, unknown> | null) ?? {},
    created_at: isoOffset(row.createdAt),
  };
}

// Session only: API keys are created by developers too, and the trail is for owners and admins.
export const listAuditEventsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/audit_events",
  tag: "Audit",
  summary: "The organization's audit trail, newest first, filtered by actor, action, target and date range",
  auth: "session",
  roles: [...MANAGER_ROLES],
  query: AuditListQuery,
  response: z.object({ data: z.array(AuditEventObject), next_cursor: z.string().nullable() }),
  errors: ["invalid_parameter"],
});

export const exportAuditEventsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/audit_events/export",
  tag: "Audit",
  summary: "Every event matching the filters, newest first, as a CSV file to download",
  auth: "session",
  roles: [...MANAGER_ROLES],
  query: AuditExportQuery,
  download: {
    contentType: "text/csv",
    description:
      "UTF-8 CSV with a header row: date, action, label, actor type, actor, actor id, target type, target, details (JSON). " +
      "Every cell is quoted; a cell starting with = + - @ (a formula to a spreadsheet) starts with an apostrophe.",
  },
  errors: ["invalid_parameter"],
});
