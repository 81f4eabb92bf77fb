import { handle } from "@/lib/http/handler";
import { getWidgetConversationEndpoint } from "@/lib/widgets/api";
import { widgetConversationDetail } from "@/lib/widgets/console";

// GET /v1/widgets/{widget}/conversations/{conversation} — each visitor message with its run and answer
export const GET = handle(getWidgetConversationEndpoint, async ({ principal, params }) => ({
  data: await widgetConversationDetail(principal.organizationId, params.widget, params.conversation),
}));
