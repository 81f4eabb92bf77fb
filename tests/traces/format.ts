import { z } from "zod";
import { REFERENCE_PREFIX } from "@/lib/contracts/lock";

// The committed traces (tests/traces/*.json): what `npm run traces:record`
// writes from traced runs of the demo scenarios, and what the regression suite
// (lib/traces/regression.test.ts) replays against the current contracts.
//
// A file is one scenario's runs as stored, made independent of the database
// it was recorded on: CRM Acme's tools are named `crm_acme.<tool>` as in the
// contracts lock (their keys carry the server's id), and ids Guichet generated
// are renumbered in order of appearance with the same shape (so `op_…`
// still matches get_operation's pattern). Payloads are the redacted ones the
// recorder stored: nothing is redacted again here, and a test scans them.

export const TRACES_DIR = "tests/traces";

export const CommittedEvent = z.strictObject({
  /** `<scenario>#<n>`: stable across recordings of the same scenario. */
  id: z.string(),
  /** Which run of the scenario (1, 2…). */
  run: z.number().int().min(1),
  kind: z.enum(["catalog", "model_request", "call", "approval", "answer"]),
  /** `crm_acme.<tool>` for CRM Acme's, the key for a built-in tool; null for points without a tool. */
  tool: z.string().nullable(),
  version: z.number().int().nullable(),
  /** A call that passed validation when it was made: the regression suite replays those. */
  valid: z.boolean().nullable(),
  payload: z.unknown(),
});
export type CommittedEvent = z.infer<typeof CommittedEvent>;

export const CommittedTrace = z.strictObject({
  scenario: z.string().regex(/^[a-z0-9-]+$/),
  description: z.string(),
  events: z.array(CommittedEvent).min(1),
});
export type CommittedTrace = z.infer<typeof CommittedTrace>;

const GENERATED_ID = /\b([a-z]{2,5})_([0-9a-z]{26})\b/g;

/** Rewrites a recording's database-specific names: the connector's keys, and generated ids in order. */
export function normalizer(serverId: number): (value: unknown) => unknown {
  const ids = new Map<string, string>();
  const key = new RegExp(`\\bmcp_${serverId}_`, "g");
  return (value) =>
    JSON.parse(
      JSON.stringify(value)
        .replace(key, REFERENCE_PREFIX)
        .replace(GENERATED_ID, (id, prefix: string) => {
          if (!ids.has(id)) ids.set(id, `${prefix}_${String(ids.size + 1).padStart(26, "0")}`);
          return ids.get(id)!;
        }),
    );
}
