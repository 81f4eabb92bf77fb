import "server-only";
import { performance } from "node:perf_hooks";
import OpenAI from "openai";
import type { ModelRoute } from "@/lib/models/providers";
import { providerClient } from "@/lib/models/providers";
import { UrlNotAllowedError } from "@/lib/net/ssrf";
import { env } from "@/lib/env";
import type { RunFailure } from "@/lib/runs/schemas";
import { inModelSpan } from "@/lib/observability/spans";

// One model call of a managed run, and the typed failure it becomes when the
// provider does not answer properly. Messages from the provider are cut short:
// they are the provider's text, shown to the API client, never logged.

export class ModelFailure extends Error {
  readonly failure: RunFailure;
  constructor(code: RunFailure["code"], message: string, field: string | null = null) {
    super(message);
    this.failure = { code, message, field };
  }
}

export interface ModelTurn {
  message: OpenAI.Chat.ChatCompletionMessage;
  usage: { input_tokens: number; output_tokens: number; duration_ms: number };
}

export interface ModelRequest {
  route: ModelRoute;
  messages: OpenAI.Chat.ChatCompletionMessageParam[];
  tools: OpenAI.Chat.ChatCompletionFunctionTool[];
  temperature: number;
  outputSchema: Record<string, unknown> | null;
  timeoutMs: number;
  signal: AbortSignal;
  /** Given: the call streams, and each piece of the model's text is handed over as it arrives. */
  onDelta?: (text: string) => Promise<void>;
}

/** Guichet's own failure while handling the answer (storing a delta): never the provider's, so never a model_error. */
class OwnError {
  constructor(readonly error: unknown) {}
}

const short = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);

function failureOf(error: unknown, route: ModelRoute, signal: AbortSignal): ModelFailure {
  if (error instanceof OpenAI.APIConnectionTimeoutError)
    return new ModelFailure("model_timeout", `${route.modelName} did not answer in time.`);
  if (error instanceof OpenAI.APIUserAbortError || signal.aborted)
    return new ModelFailure("model_timeout", "The model call was stopped: the run ended or ran out of time.");
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    return new ModelFailure(
      "model_error",
      `The provider of ${route.modelName} answered HTTP ${error.status}: ${short(error.message)}`,
    );
  }
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof UrlNotAllowedError) {
    return new ModelFailure(
      "model_error",
      `The provider URL of ${route.modelName} is refused by the network policy (${cause.reason}): a loopback or private provider needs its origin granted to the organization in GUICHET_PRIVATE_ORIGINS.`,
    );
  }
  return new ModelFailure("model_error", `The provider of ${route.modelName} could not be reached.`);
}

type CompletionParams = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;

// One client per provider configuration (base URL, key and the organization's private origins), shared by every call instead of one built per
// model call. The client holds no connection (each request goes through the network policy's pinned fetch)
// and each call passes its own timeout, so sharing changes nothing else. A changed key or URL is a new
// entry; the oldest entries go past a handful.
const CLIENTS_KEPT = 16;
const clients = new Map<string, OpenAI>();

function sharedClient(route: ModelRoute): OpenAI {
  // The grants are part of the key: two organizations allowed different private origins never share a client.
  const key = JSON.stringify([route.baseUrl, route.apiKey, [...route.privateOrigins].sort()]);
  let client = clients.get(key);
  if (!client) {
    client = providerClient(route, env.GUICHET_MODEL_TIMEOUT_MS);
    clients.set(key, client);
    if (clients.size > CLIENTS_KEPT) clients.delete(clients.keys().next().value!);
  }
  return client;
}

/**
 * The streamed answer put back together from the client's typed chunks (the
 * SDK reads the SSE wire). The SDK's own accumulator is not used: it parses a
 * json_schema answer itself and throws on an invalid one, which the loop must
 * see to ask again.
 */
async function streamedTurn(
  client: OpenAI,
  params: CompletionParams,
  request: ModelRequest,
  onDelta: (text: string) => Promise<void>,
): Promise<{ message: OpenAI.Chat.ChatCompletionMessage; usage: OpenAI.CompletionUsage | undefined; choices: number }> {
  const stream = await client.chat.completions.create(
    { ...params, stream: true, stream_options: { include_usage: true } },
    { signal: request.signal, timeout: request.timeoutMs },
  );
  let content: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  let choices = 0;
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices.find((entry) => entry.index === 0);
    if (!choice) continue;
    choices = 1;
    if (choice.delta.content) {
      content = (content ?? "") + choice.delta.content;
      await onDelta(choice.delta.content).catch((error: unknown) => {
        throw new OwnError(error);
      });
    }
    for (const part of choice.delta.tool_calls ?? []) {
      const call = (calls[part.index] ??= { id: "", name: "", arguments: "" });
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name += part.function.name;
      if (part.function?.arguments) call.arguments += part.function.arguments;
    }
  }
  const toolCalls = calls.filter(Boolean).map((call) => ({
    id: call.id,
    type: "function" as const,
    function: { name: call.name, arguments: call.arguments },
  }));
  return {
    message: { role: "assistant", content, refusal: null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
    usage,
    choices,
  };
}

export function callModel(request: ModelRequest): Promise<ModelTurn> {
  return inModelSpan(request.route, () => callProvider(request));
}

async function callProvider(request: ModelRequest): Promise<ModelTurn> {
  const client = sharedClient(request.route);
  const started = performance.now();
  const params: CompletionParams = {
    model: request.route.apiModel,
    messages: request.messages,
    temperature: request.temperature,
    ...(request.tools.length ? { tools: request.tools, tool_choice: "auto" as const } : {}),
    ...(request.outputSchema
      ? {
          response_format: {
            type: "json_schema" as const,
            json_schema: { name: "output", schema: request.outputSchema },
          },
        }
      : {}),
  };
  try {
    let answer: { message: OpenAI.Chat.ChatCompletionMessage; usage: OpenAI.CompletionUsage | undefined } | null;
    if (request.onDelta) {
      const streamed = await streamedTurn(client, params, request, request.onDelta);
      answer = streamed.choices ? streamed : null;
    } else {
      const completion = await client.chat.completions.create(params, {
        signal: request.signal,
        timeout: request.timeoutMs,
      });
      answer = completion.choices[0] ? { message: completion.choices[0].message, usage: completion.usage } : null;
    }
    if (!answer)
      throw new ModelFailure("model_error", `The provider of ${request.route.modelName} answered no choice.`);
    return {
      message: answer.message,
      usage: {
        input_tokens: answer.usage?.prompt_tokens ?? 0,
        output_tokens: answer.usage?.completion_tokens ?? 0,
        duration_ms: Math.round(performance.now() - started),
      },
    };
  } catch (error) {
    if (error instanceof ModelFailure) throw error;
    if (error instanceof OwnError) throw error.error;
    throw failureOf(error, request.route, request.signal);
  }
}
