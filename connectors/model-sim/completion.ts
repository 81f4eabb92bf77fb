import { randomBytes } from "node:crypto";
import { conversationText, type ChatRequest } from "./protocol";
import { toolCallArguments, turnText, type Turn } from "./script";

// A scripted turn rendered as the provider renders a completion: one
// `chat.completion` object, or the `chat.completion.chunk` sequence of a stream.

type AnswerTurn = Exclude<Turn, { error: unknown }>;

interface RenderedCall {
  id: string;
  name: string;
  arguments: string;
}

export interface Completion {
  id: string;
  created: number;
  model: string;
  text: string | null;
  toolCalls: RenderedCall[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

const approxTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

export function renderTurn(request: ChatRequest, turn: AnswerTurn): Completion {
  const text = turnText(turn);
  const toolCalls =
    "tool_calls" in turn
      ? turn.tool_calls.map((call) => ({
          id: `call_${randomBytes(8).toString("hex")}`,
          name: call.name,
          arguments: toolCallArguments(call),
        }))
      : [];
  const produced = (text ?? "") + toolCalls.map((call) => call.name + call.arguments).join("");
  const prompt = turn.usage?.prompt_tokens ?? approxTokens(conversationText(request.messages));
  const completion = turn.usage?.completion_tokens ?? approxTokens(produced);
  return {
    id: `chatcmpl-${randomBytes(12).toString("hex")}`,
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    text,
    toolCalls,
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

const finishReason = (completion: Completion) => (completion.toolCalls.length ? "tool_calls" : "stop");

export function completionObject(completion: Completion) {
  return {
    id: completion.id,
    object: "chat.completion",
    created: completion.created,
    model: completion.model,
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: completion.text,
          refusal: null,
          ...(completion.toolCalls.length
            ? {
                tool_calls: completion.toolCalls.map((call) => ({
                  id: call.id,
                  type: "function",
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: finishReason(completion),
      },
    ],
    usage: completion.usage,
  };
}

/** Splits text in pieces of a few characters, as providers stream tokens. */
function pieces(text: string, size = 12): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The stream's chunks in order; with `include_usage`, every chunk has `usage: null` and a last one carries it with no choice. */
export function completionChunks(completion: Completion, includeUsage: boolean): object[] {
  const base = {
    id: completion.id,
    object: "chat.completion.chunk",
    created: completion.created,
    model: completion.model,
    system_fingerprint: null,
  };
  const usageField = includeUsage ? { usage: null } : {};
  const chunk = (delta: object, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...usageField,
  });
  const chunks: object[] = [chunk({ role: "assistant", content: "", refusal: null })];
  for (const piece of pieces(completion.text ?? "")) chunks.push(chunk({ content: piece }));
  completion.toolCalls.forEach((call, index) => {
    chunks.push(
      chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }),
    );
    for (const piece of pieces(call.arguments))
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  chunks.push(chunk({}, finishReason(completion)));
  if (includeUsage) chunks.push({ ...base, choices: [], usage: completion.usage });
  return chunks;
}
