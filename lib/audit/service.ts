import "server-only";
import { db } from "@/lib/db";
import { afterCursor, page } from "@/lib/http/validation";
import { serializeAuditEvent, type AuditEventRow } from "./api";
import { auditCsvHeader, auditCsvRow } from "./csv";
import type { AuditFilters } from "./schemas";

/** One page of an organization's events, newest first: `limit + 1` rows (the caller pages with `page`). */
export function listAuditEvents(
  organizationId: string,
  query: AuditFilters & { limit: number; cursor?: string },
): Promise<AuditEventRow[]> {
  const createdAt = {
    ...(query.from ? { gte: query.from } : {}),
    ...(query.to ? { lt: query.to } : {}),
  };
  return db.auditEvent.findMany({
    where: {
      organizationId,
      ...(query.action ? { action: query.action } : {}),
      ...(query.actor ? { actorId: query.actor } : {}),
      ...(query.target_type ? { targetType: query.target_type } : {}),
      ...(query.target ? { targetId: query.target } : {}),
      ...(query.from || query.to ? { createdAt } : {}),
      ...afterCursor(query.cursor),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit + 1,
  });
}

const EXPORT_BATCH = 500;

/**
 * Every event of the organization matching the filters, newest first, as a CSV
 * download. Read in batches along the same (date, id) order as the list's
 * cursor, so the whole trail streams without being held in memory, and events
 * recorded meanwhile (newer than the first row) do not shift the batches.
 */
export async function auditCsvResponse(organizationId: string, filters: AuditFilters): Promise<Response> {
  const { slug } = await db.organization.findUniqueOrThrow({ where: { id: organizationId }, select: { slug: true } });
  let cursor: string | undefined;
  let done = false;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // A byte-order mark, so spreadsheets read the accents as UTF-8.
      controller.enqueue(encoder.encode(`\uFEFF${auditCsvHeader}`));
    },
    async pull(controller) {
      if (done) return controller.close();
      const rows = await listAuditEvents(organizationId, { ...filters, limit: EXPORT_BATCH, cursor });
      const batch = page(rows, EXPORT_BATCH, serializeAuditEvent);
      controller.enqueue(encoder.encode(batch.data.map(auditCsvRow).join("")));
      cursor = batch.next_cursor ?? undefined;
      done = cursor === undefined;
    },
  });
  const day = new Date().toISOString().slice(0, 10);
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="audit-${slug}-${day}.csv"`,
      "x-content-type-options": "nosniff",
      "cache-control": "private, no-store",
    },
  });
}
