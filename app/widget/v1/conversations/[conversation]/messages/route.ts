import { conversationTurns, sendVisitorMessage, visitorConversation } from "@/lib/widgets/conversations";
import {
  assertSessionAvailable,
  preflight,
  publicRoute,
  takeAddressSlot,
  takeMessageSlot,
  visitorSession,
} from "@/lib/widgets/public";
import { messageBody } from "@/lib/widgets/public-api";
import { appearanceOf } from "@/lib/widgets/service";
import { EVENT_STREAM_HEADERS, visitorEventStream } from "@/lib/widgets/stream";

/** The first rejection in the order given, else the values: checks taken together, refused as if one by one. */
async function inOrder<T extends readonly unknown[]>(
  pending: readonly [...{ [K in keyof T]: Promise<T[K]> }],
): Promise<T> {
  const settled = await Promise.allSettled(pending);
  for (const outcome of settled) if (outcome.status === "rejected") throw outcome.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

// POST /widget/v1/conversations/{conversation}/messages — a visitor message; the answer streams as SSE
export const POST = publicRoute<{ conversation: string }>(async (request, context, params) => {
  const session = await visitorSession(request, context);
  // The address's share, the visitor's own conversation, the body and the conversation so far are
  // independent: read together (the turns of a conversation that is not the visitor's are never used).
  const [, conversation, { content }, turns] = await inOrder<
    [
      void,
      Awaited<ReturnType<typeof visitorConversation>>,
      Awaited<ReturnType<typeof messageBody>>,
      Awaited<ReturnType<typeof conversationTurns>>,
    ]
  >([
    takeAddressSlot(request),
    visitorConversation(session.widget, session.visitor, params.conversation),
    messageBody(request),
    conversationTurns(session.widget.organizationId, params.conversation),
  ]);
  assertSessionAvailable(session);
  await takeMessageSlot(session, conversation.id);
  const { message, run } = await sendVisitorMessage(session.widget, conversation.id, content, turns);
  const stream = visitorEventStream(run, 0, appearanceOf(session.widget).language, {
    event: "message",
    data: { id: message.id },
  });
  return new Response(stream, { status: 201, headers: EVENT_STREAM_HEADERS });
});

export const OPTIONS = preflight;
