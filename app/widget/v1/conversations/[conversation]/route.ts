import { conversationTurns, visitorConversation } from "@/lib/widgets/conversations";
import { preflight, publicRoute, takeAddressSlot, visitorSession } from "@/lib/widgets/public";

// GET /widget/v1/conversations/{conversation} — the visitor's conversation read back (after a reload)
export const GET = publicRoute<{ conversation: string }>(async (request, context, params) => {
  const session = await visitorSession(request, context);
  await takeAddressSlot(request);
  const conversation = await visitorConversation(session.widget, session.visitor, params.conversation);
  const turns = await conversationTurns(session.widget.organizationId, conversation.id);
  return {
    body: {
      data: {
        id: conversation.id,
        turns: turns.map(({ id, content, status, answer, created_at }) => ({
          id,
          content,
          status,
          answer,
          created_at,
        })),
      },
    },
  };
});

export const OPTIONS = preflight;
