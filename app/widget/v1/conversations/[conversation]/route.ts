import { conversationTurns, visitorConversation } from "@/lib/widgets/conversations";
import { preflight, publicRoute, takeAddressSlot, visitorSession } from "@/lib/widgets/public";
import { refusalForVisitor } from "@/lib/widgets/refusal";
import { appearanceOf } from "@/lib/widgets/service";

// GET /widget/v1/conversations/{conversation} — the visitor's conversation read back (after a reload)
export const GET = publicRoute<{ conversation: string }>(async (request, context, params) => {
  const session = await visitorSession(request, context);
  await takeAddressSlot(request);
  const conversation = await visitorConversation(session.widget, session.visitor, params.conversation);
  const turns = await conversationTurns(session.widget.organizationId, conversation.id);
  const language = appearanceOf(session.widget).language;
  return {
    body: {
      data: {
        id: conversation.id,
        turns: turns.map(({ id, content, status, answer, refusal, created_at }) => {
          // A refused turn's answer is the model's reply to the refusal: shown only with a shareable reason.
          const refused = status === "refused" && refusal ? refusalForVisitor(refusal, answer, language) : null;
          return {
            id,
            content,
            status,
            answer: refused ? refused.text : answer,
            refusal: refused && { message: refused.message, reason: refused.reason },
            created_at,
          };
        }),
      },
    },
  };
});

export const OPTIONS = preflight;
