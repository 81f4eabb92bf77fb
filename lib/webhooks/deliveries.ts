import "server-only";
import { db } from "@/lib/db";
import { ApiError, notFound } from "@/lib/http/errors";
import { afterCursor } from "@/lib/http/validation";
import { isoOffset, isoOffsetOrNull } from "@/lib/time";
import { getEndpoint } from "./endpoints";
import { WebhookEventType, type DeliveryStatus, type WebhookDeliveryObject } from "./schemas";

// An endpoint's delivery log, and « Renvoyer »: one more attempt of the same
// message (same webhook-id, so a receiver that already has it can drop it).

type DeliveryRow = Awaited<ReturnType<typeof findDeliveries>>[number];

function findDeliveries(where: object, take: number) {
  return db.outboxDelivery.findMany({
    where,
    include: { event: { select: { type: true } } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take,
  });
}

export function serializeDelivery(row: DeliveryRow): WebhookDeliveryObject {
  return {
    id: row.id,
    event: row.eventId,
    event_type: WebhookEventType.catch("proposal.created").parse(row.event.type),
    status: row.status === "succeeded" || row.status === "failed" ? row.status : "pending",
    attempts: row.attempts,
    next_attempt_at: row.status === "pending" ? isoOffset(row.nextAttemptAt) : null,
    response_status: row.lastStatusCode,
    last_error: row.lastError,
    duration_ms: row.lastDurationMs,
    delivered_at: isoOffsetOrNull(row.deliveredAt),
    created_at: isoOffset(row.createdAt),
  };
}

export async function listDeliveries(
  organizationId: string,
  endpointId: string,
  query: { limit: number; cursor?: string; status?: DeliveryStatus },
): Promise<DeliveryRow[]> {
  const endpoint = await getEndpoint(organizationId, endpointId);
  return findDeliveries(
    { endpointId: endpoint.id, ...(query.status && { status: query.status }), ...afterCursor(query.cursor) },
    query.limit + 1,
  );
}

export async function resendDelivery(organizationId: string, endpointId: string, id: string): Promise<DeliveryRow> {
  const endpoint = await getEndpoint(organizationId, endpointId);
  const now = new Date();
  const existing = await db.outboxDelivery.findFirst({ where: { id, endpointId: endpoint.id } });
  if (!existing) throw notFound("Delivery");
  if (endpoint.status !== "enabled") {
    throw new ApiError("conflict", "This endpoint is disabled: enable it before sending again.", {
      reason: { endpoint_status: endpoint.status },
    });
  }
  const queued = await db.outboxDelivery.updateMany({
    where: { id: existing.id, OR: [{ claimedUntil: null }, { claimedUntil: { lt: now } }] },
    data: { status: "pending", nextAttemptAt: now, claimedUntil: null },
  });
  if (queued.count === 0) throw new ApiError("conflict", "This delivery is being sent right now.");
  const [row] = await findDeliveries({ id: existing.id }, 1);
  return row;
}
