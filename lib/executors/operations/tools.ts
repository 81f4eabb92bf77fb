import { JSON_SCHEMA_2020, type JsonSchema } from "../native/types";
import type { ExecutionContext, Executor } from "../context";
import { ToolError } from "../errors";

// get_operation: the read tool an agent polls a write's operation with, until
// it reaches a final state. A write the service accepted and still works on is
// `running`; Guichet asks the service's job status on each poll. The agent sees
// only the operations of its own run.

const operationId = {
  type: "string",
  pattern: "^op_[0-9a-z]{26}$",
  description: "The operation id of a commit's evidence (evidence.operation).",
};
const closed = (properties: Record<string, unknown>, required: string[]): JsonSchema => ({
  $schema: JSON_SCHEMA_2020,
  type: "object",
  properties,
  required,
  additionalProperties: false,
});

export const operationToolSchemas: Record<"get_operation", { input: JsonSchema; output: JsonSchema }> = {
  get_operation: {
    input: closed({ operation_id: operationId }, ["operation_id"]),
    output: closed(
      {
        operation_id: { type: "string" },
        status: { enum: ["queued", "running", "succeeded", "failed", "cancelled", "unknown"] },
        tool: { type: "string" },
        /** What the service answered when it accepted or committed the write. */
        result: { type: ["object", "null"] },
        /** A long operation's final state, as the service's job status reported it. */
        outcome: { type: ["object", "null"] },
        error: {
          anyOf: [
            { type: "null" },
            {
              type: "object",
              properties: { code: { type: "string" }, message: { type: "string" } },
              required: ["code", "message"],
              additionalProperties: false,
            },
          ],
        },
        untrusted: { const: true },
      },
      ["operation_id", "status", "tool", "result", "outcome", "error", "untrusted"],
    ),
  },
};

export interface OperationView {
  operation_id: string;
  status: "queued" | "running" | "succeeded" | "failed" | "cancelled" | "unknown";
  tool: string;
  result: Record<string, unknown> | null;
  outcome: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
}

/** What the dispatcher lends the executor: reading (and following) one operation of the run. */
export interface OperationFollower {
  follow(operationId: string, ctx: ExecutionContext): Promise<OperationView>;
}

export const operationExecutors: Record<string, Executor> = {
  get_operation: {
    async execute(args, ctx) {
      if (!ctx.operations) throw new ToolError("TOOL_UNAVAILABLE", "Operations cannot be read here.");
      const { operation_id } = args as { operation_id: string };
      return { ...(await ctx.operations.follow(operation_id, ctx)), untrusted: true };
    },
  },
};
