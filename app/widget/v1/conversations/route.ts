import { preflight, publicRoute } from "@/lib/widgets/public";
import { newConversation, visitorConversations } from "@/lib/widgets/public-api";

// GET /widget/v1/conversations — the visitor's own conversations, newest first
export const GET = publicRoute(visitorConversations);

// POST /widget/v1/conversations — a new conversation (the widget's daily limit counts it)
export const POST = publicRoute(newConversation);

export const OPTIONS = preflight;
