import { checkAgainst } from "@/lib/contracts/schema";
import type { Contract } from "@/lib/contracts/types";
import { askStatusTool } from "@/lib/dispatch/status";
import type { ExecutionContext } from "@/lib/executors";
import { readStatusAnswer, type StatusReading } from "./status";

// Step 1 of the fixed recovery sequence: ask the service's status tool (through
// the dispatcher, on Guichet's own account) what it recorded under the
// idempotency key, and trust a recorded success only if it also passes the
// write tool's output schema.

export async function askStatus(input: {
  organizationId: string;
  contract: Contract;
  idempotencyKey: string;
  context: ExecutionContext;
}): Promise<StatusReading> {
  const answer = await askStatusTool(input);
  if (!answer.ok) return { kind: "unknown", why: answer.why };
  const { contract } = input;
  const reading = readStatusAnswer(answer.result, contract.mcp?.tool ?? null);
  if (reading.kind === "succeeded") {
    const bad = checkAgainst(contract.output_schema, reading.result, contract.kind === "mcp" ? "lenient" : "strict");
    if (bad)
      return { kind: "unknown", why: `the recorded result breaks the tool's output schema (rule ${bad.schemaPath})` };
  }
  return reading;
}
