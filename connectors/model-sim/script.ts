import { z } from "zod";

// A script is what the model "says", turn by turn. Each chat-completion request
// that selects the script gets its next turn; the test or the demo writes the
// turns, so a conversation is reproducible to the byte.

const Usage = z.strictObject({ prompt_tokens: z.number().int().min(0), completion_tokens: z.number().int().min(0) });

const ScriptedToolCall = z.union([
  z.strictObject({ name: z.string().min(1), arguments: z.unknown() }),
  /** Arguments sent as this exact string: lets a script send JSON that does not parse. */
  z.strictObject({ name: z.string().min(1), raw_arguments: z.string() }),
]);
export type ScriptedToolCall = z.infer<typeof ScriptedToolCall>;

const Common = { delay_ms: z.number().int().min(0).max(120_000).optional(), usage: Usage.optional() };

export const Turn = z.union([
  z.strictObject({ text: z.string(), ...Common }),
  /** A JSON answer, sent as the message's text (what structured output looks like on the wire). */
  z.strictObject({ json: z.unknown(), ...Common }),
  z.strictObject({
    tool_calls: z.array(ScriptedToolCall).min(1).max(16),
    text: z.string().optional(),
    /** The answer instead, when the request offers no tool a `*` name stands for (a tool the run left out). */
    when_not_offered: z.string().optional(),
    ...Common,
  }),
  /** An HTTP error answer instead of a completion, in the provider's error shape. */
  z.strictObject({
    error: z.strictObject({ status: z.number().int().min(400).max(599), message: z.string().optional() }),
    delay_ms: Common.delay_ms,
  }),
]);
export type Turn = z.infer<typeof Turn>;

export const ScriptBody = z.strictObject({
  turns: z.array(Turn).min(1).max(200),
  /**
   * `sequential` (default): each request takes the next turn, once. `by_conversation`:
   * the turn is the number of assistant messages already in the request, so every
   * new conversation starts from the first turn (the demo's many runs share one script). `by_user_turn`:
   * the turn is the number of assistant messages since the last user message, so each message of a chat
   * starts the script again (a conversation that goes on after an answer).
   */
  replay: z.enum(["sequential", "by_conversation", "by_user_turn"]).default("sequential"),
});
export type ScriptBody = z.infer<typeof ScriptBody>;

/**
 * The marker a conversation carries (in any message) to select a script: `sim:<id>`, the id of a script
 * created through the control API (`scr_…`) or of a named script given at start (`demo_…`, from its file name).
 */
export const SCRIPT_MARKER = /\bsim:(scr_[a-z0-9]{12}|demo_[a-z0-9_]{1,40})\b/;

/** The id a named script file is selected by: `boutique-orders.json` → `demo_boutique_orders`. */
export function namedScriptId(fileName: string): string {
  return `demo_${fileName
    .replace(/\.json$/, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .slice(0, 40)}`;
}

/** In a turn's text, what the last tool message of the request said (a scripted answer that quotes a tool's result). */
export const LAST_TOOL_RESULT = "{{last_tool_result}}";

/** The text of the assistant turn a scripted turn becomes, or null for a tool-call-only turn. */
export function turnText(turn: Turn): string | null {
  if ("json" in turn) return JSON.stringify(turn.json);
  if ("text" in turn) return turn.text ?? null;
  return null;
}

/**
 * A scripted name with `*` stands for the one tool of the request whose name matches it
 * (`mcp_*_get_customer`): a script then fits a catalog whose keys it cannot know in advance.
 * Answers the name to send, or an error sentence when the request offers no such tool, or several.
 */
export function resolveToolName(name: string, offered: string[]): { name: string } | { error: string } {
  if (!name.includes("*")) return { name };
  const pattern = new RegExp(
    `^${name
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
  const matches = offered.filter((tool) => pattern.test(tool));
  if (matches.length === 1) return { name: matches[0] };
  return {
    error: matches.length
      ? `The script calls ${name}, which matches several offered tools (${matches.join(", ")}).`
      : `The script calls ${name}, and the request offers no tool of that name.`,
  };
}

export function toolCallArguments(call: ScriptedToolCall): string {
  return "raw_arguments" in call ? call.raw_arguments : JSON.stringify(call.arguments ?? {});
}
