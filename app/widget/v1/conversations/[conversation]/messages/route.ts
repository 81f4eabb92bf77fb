import { sendVisitorMessage, visitorConversation } from "@/lib/widgets/conversations";
import {
  assertAvailable,
  preflight,
  publicRoute,
  takeAddressSlot,
  takeMessageSlot,
  visitorSession,
} from "@/lib/widgets/public";
import { messageBody } from "@/lib/widgets/public-api";
import { appearanceOf } from "@/lib/widgets/service";
import { EVENT_STREAM_HEADERS, visitorEventStream } from "@/lib/widgets/stream";

// POST /widget/v1/conversations/{conversation}/messages — a visitor message; the answer streams as SSE
export const POST = publicRoute<{ conversation: string }>(async (request, context, params) => {
  const session = await visitorSession(request, context);
  await takeAddressSlot(request);
  const conversation = await visitorConversation(session.widget, session.visitor, params.conversation);
  const { content } = await messageBody(request);
  await assertAvailable(session.widget);
  await takeMessageSlot(session, conversation.id);
  const { message, run } = await sendVisitorMessage(session.widget, conversation.id, content);
  const stream = visitorEventStream(run, 0, appearanceOf(session.widget).language, {
    event: "message",
    data: { id: message.id },
  });
  return new Response(stream, { status: 201, headers: EVENT_STREAM_HEADERS });
});

export const OPTIONS = preflight;
