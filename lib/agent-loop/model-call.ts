import "server-only";
import { performance } from "node:perf_hooks";
import OpenAI from "openai";
import type { ModelRoute } from "@/lib/models/providers";
import { providerClient } from "@/lib/models/providers";
import { UrlNotAllowedError } from "@/lib/net/ssrf";
import type { RunFailure } from "@/lib/runs/schemas";

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
      `The provider URL of ${route.modelName} is refused by the network policy (${cause.reason}): a loopback or private provider needs its origin in GUICHET_PRIVATE_ORIGINS.`,
    );
  }
  return new ModelFailure("model_error", `The provider of ${route.modelName} could not be reached.`);
}

export async function callModel(request: ModelRequest): Promise<ModelTurn> {
  const client = providerClient(request.route, request.timeoutMs);
  const started = performance.now();
  try {
    const completion = await client.chat.completions.create(
      {
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
      },
      { signal: request.signal },
    );
    const choice = completion.choices[0];
    if (!choice)
      throw new ModelFailure("model_error", `The provider of ${request.route.modelName} answered no choice.`);
    return {
      message: choice.message,
      usage: {
        input_tokens: completion.usage?.prompt_tokens ?? 0,
        output_tokens: completion.usage?.completion_tokens ?? 0,
        duration_ms: Math.round(performance.now() - started),
      },
    };
  } catch (error) {
    if (error instanceof ModelFailure) throw error;
    throw failureOf(error, request.route, request.signal);
  }
}
