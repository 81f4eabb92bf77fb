import { handle } from "@/lib/http/handler";
import { listRunMessagesEndpoint } from "@/lib/runs/api";
import { runTranscript } from "@/lib/runs/service";

// GET /v1/runs/{run}/messages — a managed run's conversation with its model
export const GET = handle(listRunMessagesEndpoint, async ({ principal, params }) => ({
  data: await runTranscript(principal.organizationId, params.run),
}));
