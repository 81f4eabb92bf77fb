import { lastEventId } from "@/lib/agent-loop/event-stream";
import { db } from "@/lib/db";
import { notFound } from "@/lib/http/errors";
import { visitorConversation } from "@/lib/widgets/conversations";
import { preflight, publicRoute, takeAddressSlot, visitorSession } from "@/lib/widgets/public";
import { appearanceOf } from "@/lib/widgets/service";
import { EVENT_STREAM_HEADERS, visitorEventStream } from "@/lib/widgets/stream";

// GET /widget/v1/conversations/{conversation}/messages/{message}/events — re-attach to an answer (Last-Event-ID)
export const GET = publicRoute<{ conversation: string; message: string }>(async (request, context, params) => {
  const session = await visitorSession(request, context);
  await takeAddressSlot(request);
  const conversation = await visitorConversation(session.widget, session.visitor, params.conversation);
  const message = await db.widgetMessage.findFirst({
    where: { id: params.message, conversationId: conversation.id, organizationId: session.widget.organizationId },
    select: { runId: true },
  });
  if (!message?.runId) throw notFound("Message");
  const after = lastEventId(request.headers.get("last-event-id") ?? new URL(request.url).searchParams.get("after"));
  const run = { id: message.runId, organizationId: session.widget.organizationId };
  return new Response(visitorEventStream(run, after, appearanceOf(session.widget).language), {
    headers: EVENT_STREAM_HEADERS,
  });
});

export const OPTIONS = preflight;
