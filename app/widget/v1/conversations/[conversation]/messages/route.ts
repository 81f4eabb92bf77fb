import { sendVisitorMessage } from "@/lib/widgets/conversations";
import { openVisitorTurn, preflight, publicRoute, visitorSession } from "@/lib/widgets/public";
import { messageBody } from "@/lib/widgets/public-api";
import { appearanceOf } from "@/lib/widgets/service";
import { EVENT_STREAM_HEADERS, visitorEventStream } from "@/lib/widgets/stream";

// POST /widget/v1/conversations/{conversation}/messages — a visitor message; the answer streams as SSE
export const POST = publicRoute<{ conversation: string }>(async (request, context, params) => {
  const session = await visitorSession(request, context);
  // The address's share, the conversation's owner, the message's counters and the conversation so far:
  // one round trip on the driver, each refusal in its order (openVisitorTurn).
  const { content, history } = await openVisitorTurn(request, session, params.conversation, messageBody(request));
  const { message, run } = await sendVisitorMessage(session.widget, params.conversation, content, history);
  const stream = visitorEventStream(run, 0, appearanceOf(session.widget).language, {
    event: "message",
    data: { id: message.id },
  });
  return new Response(stream, { status: 201, headers: EVENT_STREAM_HEADERS });
});

export const OPTIONS = preflight;
