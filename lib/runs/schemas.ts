import { z } from "zod";
import { ListQuery } from "@/lib/http/list-query";

// Runs' zod schemas and types: safe for the browser (no server import).

export const RunCapabilities = z.enum(["read", "read_write"]);

export const RunCreateBody = z.strictObject({
  agent: z.string().min(1).max(64),
  instructions: z.string().max(20_000).nullable().optional(),
  files: z.array(z.string().min(1).max(64)).max(20).optional(),
  capabilities: RunCapabilities.default("read"),
  /** Keeps redacted arguments and viewed results on the run's steps; off unless asked. */
  debug: z.boolean().default(false),
});
export type RunCreateBody = z.infer<typeof RunCreateBody>;

export const RunListQuery = ListQuery.extend({
  agent: z.string().min(1).max(64).optional().meta({ description: "Only the runs of this agent. A deleted agent's runs are kept with `agent: null` and match no id." }),
});
export type RunListQuery = z.infer<typeof RunListQuery>;

export const RunParams = z.strictObject({ run: z.string().min(1).max(64) });

export const WarningObject = z.object({ code: z.string(), tool: z.string(), reason: z.object({ code: z.string(), message: z.string() }) });

export const RunObject = z.object({
  id: z.string(),
  agent: z.string().nullable().meta({ description: "The agent the run executes; null once that agent was deleted (the run, its steps and its proposals are kept, and it accepts no more tool calls)." }),
  status: z.enum(["active", "suspended", "cancelled", "completed", "expired"]),
  capabilities: RunCapabilities,
  instructions: z.string(),
  capability_set: z.array(z.object({ tool: z.string(), version: z.number().int(), effect: z.enum(["read", "write"]) })),
  warnings: z.array(WarningObject),
  files: z.array(z.string()),
  debug: z.boolean(),
  expires_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type RunObject = z.infer<typeof RunObject>;

