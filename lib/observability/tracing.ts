import type * as OtelApi from "@opentelemetry/api";
import type { Attributes, Span, SpanKind } from "@opentelemetry/api";

// The tracing switch every instrumentation point goes through. Off (the default),
// `inSpan` calls its function and nothing else: the OpenTelemetry API is not even
// loaded, no span object exists. On, `instrumentation.ts` has started the SDK
// (./start-tracing.ts) and handed the API module here.
//
// The state lives on globalThis: Next bundles instrumentation.ts and the routes
// separately, and each bundle would otherwise hold its own copy of this module.
//
// The payload-free rule: attributes carry names the registry or the validator
// produced (tool keys, versions, codes, ids), counts and durations — never
// arguments, prompts, answers, tool results, tokens or keys.

interface TracingState {
  api: typeof OtelApi;
  tracer: OtelApi.Tracer;
}

const slot = globalThis as unknown as { guichetTracing?: TracingState };

/** Called once by start-tracing.ts when the SDK is up. */
export function enableTracing(api: typeof OtelApi, tracer: OtelApi.Tracer): void {
  slot.guichetTracing = { api, tracer };
}

/** Back to off (the benchmark measures both in one process). */
export function disableTracing(): void {
  delete slot.guichetTracing;
}

/** Runs `work` as if tracing were off (the benchmark alternates traced and untraced calls). */
export async function untraced<T>(work: () => Promise<T>): Promise<T> {
  const state = slot.guichetTracing;
  delete slot.guichetTracing;
  try {
    return await work();
  } finally {
    if (state) slot.guichetTracing = state;
  }
}

export function tracingEnabled(): boolean {
  return slot.guichetTracing !== undefined;
}

/** The span kinds used here, as the API numbers them (read without loading the API). */
export const KIND = { internal: 0, server: 1, client: 2 } as const satisfies Record<string, SpanKind>;

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** A W3C traceparent (and tracestate) to continue: used when no span is active here, or always with `preferCarrier`. */
  carrier?: Record<string, string | undefined>;
  preferCarrier?: boolean;
  /** The `error.type` of a thrown error (a typed code); its class name otherwise. */
  errorType?: (error: unknown) => string | null;
}

/** Runs `work` inside a span (when tracing is on); an error thrown sets the span's status and `error.type`. */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span | null) => Promise<T>): Promise<T> {
  const state = slot.guichetTracing;
  if (!state) return work(null);
  const { api, tracer } = state;
  let parent = api.context.active();
  const carrier = options.carrier;
  if (carrier?.traceparent && (options.preferCarrier || !api.trace.getSpan(parent)))
    parent = api.propagation.extract(api.ROOT_CONTEXT, carrier);
  return tracer.startActiveSpan(
    name,
    { kind: options.kind ?? KIND.internal, attributes: options.attributes },
    parent,
    async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.setStatus({ code: api.SpanStatusCode.ERROR });
        // A code or the error's class, never its message (it may quote a provider's or a service's text).
        const type = options.errorType?.(error) ?? (error instanceof Error ? error.name : "unknown");
        span.setAttribute("error.type", type);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Marks the span as failed with a typed code (a refusal inside a successful answer is an error too). */
export function failSpan(span: Span | null, errorType: string): void {
  const state = slot.guichetTracing;
  if (!span || !state) return;
  span.setStatus({ code: state.api.SpanStatusCode.ERROR });
  span.setAttribute("error.type", errorType);
}

/** The span of the active context, or null (tracing off, or no span here). */
export function activeSpan(): Span | null {
  const state = slot.guichetTracing;
  if (!state) return null;
  return state.api.trace.getSpan(state.api.context.active()) ?? null;
}

/** Attributes for the active span (a point inside an instrumented function that learns something late). */
export function annotateActiveSpan(attributes: Attributes): void {
  const state = slot.guichetTracing;
  if (!state) return;
  state.api.trace.getSpan(state.api.context.active())?.setAttributes(attributes);
}

/** The active context as W3C headers (`traceparent`, `tracestate`), or null when tracing is off. */
export function traceCarrier(): Record<string, string> | null {
  const state = slot.guichetTracing;
  if (!state) return null;
  const carrier: Record<string, string> = {};
  state.api.propagation.inject(state.api.context.active(), carrier);
  return carrier.traceparent ? carrier : null;
}

/** A fetch `init` carrying the active trace to the next hop (an MCP server, a model provider). */
export function withTraceHeaders<I extends { headers?: HeadersInit } | undefined>(init: I): I {
  const carrier = traceCarrier();
  if (!carrier) return init;
  const headers = new Headers(init?.headers);
  for (const [key, value] of Object.entries(carrier)) headers.set(key, value);
  return { ...init, headers } as I;
}

/** Runs `work` under a stored carrier (a background job continuing its request's trace). */
export function underCarrier<T>(carrier: unknown, work: () => Promise<T>): Promise<T> {
  const state = slot.guichetTracing;
  if (!state || !isCarrier(carrier)) return work();
  return state.api.context.with(state.api.propagation.extract(state.api.ROOT_CONTEXT, carrier), work);
}

function isCarrier(value: unknown): value is Record<string, string> {
  return (
    typeof value === "object" && value !== null && typeof (value as { traceparent?: unknown }).traceparent === "string"
  );
}
