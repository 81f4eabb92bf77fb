import { listAuditEventsEndpoint, serializeAuditEvent } from "@/lib/audit/api";
import { listAuditEvents } from "@/lib/audit/service";
import { handle } from "@/lib/http/handler";
import { page } from "@/lib/http/validation";

// GET /v1/audit_events — the audit trail, newest first (owner and admin, session only)
export const GET = handle(listAuditEventsEndpoint, async ({ principal, query }) =>
  page(await listAuditEvents(principal.organizationId, query), query.limit, serializeAuditEvent),
);
