import { policyWarnings, simulatePolicyEndpoint } from "@/lib/policies/api";
import { simulatePolicy } from "@/lib/policies/simulate";
import { handle } from "@/lib/http/handler";

// POST /v1/policies/simulate — a draft table against the recorded decisions; nothing is written
export const POST = handle(simulatePolicyEndpoint, async ({ principal, body }) => ({
  data: await simulatePolicy(principal.organizationId, { rules: body.rules, since: body.since }),
  warnings: policyWarnings(body),
}));
