import { handle } from "@/lib/http/handler";
import { page } from "@/lib/http/validation";
import { listWidgetConversationsEndpoint } from "@/lib/widgets/api";
import { listWidgetConversations, serializeConversation } from "@/lib/widgets/console";

// GET /v1/widgets/{widget}/conversations — the widget's visitor conversations, read-only
export const GET = handle(listWidgetConversationsEndpoint, async ({ principal, params, query }) =>
  page(
    await listWidgetConversations(principal.organizationId, params.widget, query),
    query.limit,
    serializeConversation,
  ),
);
