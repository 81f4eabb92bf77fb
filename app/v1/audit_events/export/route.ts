import { exportAuditEventsEndpoint } from "@/lib/audit/api";
import { auditCsvResponse } from "@/lib/audit/service";
import { handle } from "@/lib/http/handler";

// GET /v1/audit_events/export — every matching event as CSV (owner and admin, session only)
export const GET = handle(exportAuditEventsEndpoint, async ({ principal, query }) =>
  auditCsvResponse(principal.organizationId, query),
);
