import "server-only";
import { db } from "@/lib/db";
import { notFound } from "@/lib/http/errors";
import { afterCursor } from "@/lib/http/validation";
import { isoOffset } from "@/lib/time";
import { conversationTurns } from "./conversations";
import type { WidgetConversationObject } from "./schemas";
import { getWidget } from "./service";

// What members read of a widget's conversations: read-only, scoped to the organization.

type ConversationRow = Awaited<ReturnType<typeof listWidgetConversations>>[number];

export function serializeConversation(row: ConversationRow): WidgetConversationObject {
  return {
    id: row.id,
    widget: row.widgetId,
    visitor: { id: row.visitorId, name: row.visitorName },
    origin: row.origin,
    preview: row.preview,
    messages: row._count.messages,
    created_at: isoOffset(row.createdAt),
    updated_at: isoOffset(row.updatedAt),
  };
}

export async function listWidgetConversations(
  organizationId: string,
  widgetId: string,
  query: { limit: number; cursor?: string },
) {
  await getWidget(organizationId, widgetId);
  return db.widgetConversation.findMany({
    where: { organizationId, widgetId, ...afterCursor(query.cursor) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit + 1,
    include: { _count: { select: { messages: true } } },
  });
}

export async function widgetConversationDetail(organizationId: string, widgetId: string, conversationId: string) {
  const row = await db.widgetConversation.findFirst({
    where: { id: conversationId, organizationId, widgetId },
    include: { _count: { select: { messages: true } } },
  });
  if (!row) throw notFound("Conversation");
  const turns = await conversationTurns(organizationId, row.id);
  return {
    ...serializeConversation(row),
    turns: turns.map(({ id, content, run, run_status, answer, created_at }) => ({
      id,
      content,
      run,
      run_status,
      answer,
      created_at,
    })),
  };
}
