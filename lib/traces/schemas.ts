import { z } from "zod";

// Replay's zod schemas and types: safe for the browser (no server import).

export const ReplayParams = z.strictObject({ key: z.string().min(1).max(200) });
export const ReplayBody = z.strictObject({
  version: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .meta({ description: "The contract version to check the calls against." }),
});

export const ReplayRefusal = z.object({
  trace: z.string().meta({ description: "The recorded call (trace point id)." }),
  run: z.string(),
  code: z
    .string()
    .meta({ description: "What the validation would answer now (INVALID_ARGUMENTS, ARGUMENTS_TOO_LARGE…)." }),
  field: z.string().nullable().meta({ description: "JSON pointer of the refused value." }),
  message: z.string(),
  redacted: z.boolean().meta({
    description:
      "The refused value (or one inside it) was redacted in the trace: the refusal may come from its placeholder.",
  }),
});
export type ReplayRefusal = z.infer<typeof ReplayRefusal>;

const CallEffects = z.object({
  effect: z.enum(["read", "write"]),
  approval: z
    .object({ decision: z.enum(["allow", "require_approval", "deny"]), approvals_required: z.number().int() })
    .nullable()
    .meta({ description: "What a person must decide before the write runs; null for a read that made no proposal." }),
});

export const EffectChange = z.object({
  trace: z.string(),
  run: z.string(),
  changed: z.array(z.enum(["effect", "approval"])).meta({ description: "Which of the two moved." }),
  recorded: CallEffects,
  now: CallEffects,
});

export const ReplayReport = z.object({
  tool: z.string(),
  version: z.number().int().nullable().meta({ description: "null: the version under review, not published yet." }),
  checked: z
    .number()
    .int()
    .meta({ description: "Recorded calls of this tool that passed validation when they were made." }),
  still_valid: z.number().int(),
  refused: z.number().int().meta({ description: "How many of the checked calls this version would refuse." }),
  now_refused: z.array(ReplayRefusal).meta({ description: "The refused calls, oldest first (at most 100)." }),
  effects_checked: z.number().int().meta({
    description:
      "Recorded calls that kept their effect and approval need (calls recorded before these were are left out).",
  }),
  effects_changed: z.array(EffectChange).meta({
    description:
      "Calls this version (with the organization's current policy) would run with another effect or approval need, oldest first (at most 100).",
  }),
});
export type ReplayReport = z.infer<typeof ReplayReport>;
