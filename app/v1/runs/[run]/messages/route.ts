import { handle } from "@/lib/http/handler";
import { listRunMessagesEndpoint } from "@/lib/runs/api";
import { runTranscript } from "@/lib/runs/service";
import { isoOffset } from "@/lib/time";

// GET /v1/runs/{run}/messages — a managed run's conversation with its model
export const GET = handle(listRunMessagesEndpoint, async ({ principal, params }) => {
  const { messages, purgedAt } = await runTranscript(principal.organizationId, params.run);
  return { data: messages, purged_at: purgedAt ? isoOffset(purgedAt) : null };
});
