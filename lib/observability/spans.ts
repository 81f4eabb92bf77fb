import type { Attributes } from "@opentelemetry/api";
import { fieldLabel, metrics, noteHttpRequest } from "./metrics";
import { activeSpan, failSpan, inSpan, KIND, traceCarrier, tracingEnabled, underCarrier } from "./tracing";

// One call per instrumentation point: each helper opens the span the OpenTelemetry
// GenAI and MCP conventions name for that point and counts its Prometheus metrics.
// With tracing off and no metrics token, each one is a function call and a check.
// Attributes follow the payload-free rule of ./tracing.ts: ids, keys, codes, counts.

const GENAI_OPERATION = "gen_ai.operation.name";

function serverOf(url: string): Attributes {
  if (!URL.canParse(url)) return {};
  const parsed = new URL(url);
  const port = parsed.port ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80;
  return { "server.address": parsed.hostname, "server.port": port };
}

/** The HTTP request of a /v1 (or /mcp) route: its template, never the raw path. */
export async function inRequestSpan<A extends { status: number }>(
  request: Request,
  route: string,
  work: () => Promise<A>,
): Promise<A> {
  if (!tracingEnabled() && !metrics()) return work();
  const started = performance.now();
  const response = await inSpan(
    `${request.method} ${route}`,
    {
      kind: KIND.server,
      attributes: { "http.request.method": request.method, "http.route": route, "url.scheme": "http" },
      carrier: {
        traceparent: request.headers.get("traceparent") ?? undefined,
        tracestate: request.headers.get("tracestate") ?? undefined,
      },
    },
    async (span) => {
      const answer = await work();
      span?.setAttribute("http.response.status_code", answer.status);
      if (answer.status >= 500) failSpan(span, String(answer.status));
      return answer;
    },
  );
  noteHttpRequest(route, request.method, response.status, (performance.now() - started) / 1000);
  return response;
}

interface RunLike {
  id: string;
  agentId: string | null;
  modelId?: string | null;
  status: string;
  usage?: unknown;
}

/** One stretch of a managed run's loop (`invoke_agent`): from its start or resume to its pause or end. */
export async function inRunSpan<R extends Pick<RunLike, "status" | "usage">>(
  run: RunLike,
  work: () => Promise<R>,
): Promise<R> {
  const callsBefore = modelCallsOf(run.usage);
  const ended = await inSpan(
    `invoke_agent ${run.agentId ?? "deleted"}`,
    {
      attributes: {
        [GENAI_OPERATION]: "invoke_agent",
        "gen_ai.agent.id": run.agentId ?? "",
        "gen_ai.conversation.id": run.id,
        "guichet.run.id": run.id,
        ...(run.modelId ? { "guichet.model.id": run.modelId } : {}),
      },
    },
    async (span) => {
      const result = await work();
      span?.setAttribute("guichet.run.status", result.status);
      if (result.status === "failed") failSpan(span, "run_failed");
      return result;
    },
  );
  const m = metrics();
  if (m) {
    m.runs.inc({ status: ended.status });
    m.runSteps.observe(Math.max(0, modelCallsOf(ended.usage) - callsBefore));
  }
  return ended;
}

function modelCallsOf(usage: unknown): number {
  const calls = (usage as { model_calls?: unknown } | null)?.model_calls;
  return Array.isArray(calls) ? calls.length : 0;
}

interface ModelRouteLike {
  provider: string;
  apiModel: string;
  baseUrl: string;
}

/** One model call (`chat {model}`), with its token usage. */
export async function inModelSpan<T extends { usage: { input_tokens: number; output_tokens: number } }>(
  route: ModelRouteLike,
  work: () => Promise<T>,
): Promise<T> {
  const m = metrics();
  try {
    const turn = await inSpan(
      `chat ${route.apiModel}`,
      {
        kind: KIND.client,
        attributes: {
          [GENAI_OPERATION]: "chat",
          "gen_ai.provider.name": route.provider,
          "gen_ai.request.model": route.apiModel,
          ...serverOf(route.baseUrl),
        },
        errorType: failureCode,
      },
      async (span) => {
        const answer = await work();
        span?.setAttributes({
          "gen_ai.usage.input_tokens": answer.usage.input_tokens,
          "gen_ai.usage.output_tokens": answer.usage.output_tokens,
        });
        return answer;
      },
    );
    if (m) {
      m.modelCalls.inc({ provider: route.provider, outcome: "ok" });
      m.modelTokens.inc({ provider: route.provider, direction: "input" }, turn.usage.input_tokens);
      m.modelTokens.inc({ provider: route.provider, direction: "output" }, turn.usage.output_tokens);
    }
    return turn;
  } catch (error) {
    m?.modelCalls.inc({ provider: route.provider, outcome: failureCode(error) ?? "error" });
    throw error;
  }
}

/** A ModelFailure's or ToolError's code, else null. */
function failureCode(error: unknown): string | null {
  const failure = (error as { failure?: { code?: unknown } } | null)?.failure;
  if (typeof failure?.code === "string") return failure.code;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[A-Z_]{2,40}$/.test(code) ? code : null;
}

/** One tool call through the dispatcher (`execute_tool`); its tool and outcome are noted by noteToolCall. */
export function inToolSpan<T>(runId: string, work: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return work();
  return inSpan(
    "execute_tool",
    { attributes: { [GENAI_OPERATION]: "execute_tool", "gen_ai.tool.type": "function", "guichet.run.id": runId } },
    () => work(),
  );
}

/** The proposal a write call is about, by kind of answer. */
export type ToolDecision = "executed" | "proposed" | "pending_approval" | "committed" | "refused";

export interface ToolCallNote {
  /** The registered tool's key and version; null when the name matched none. */
  tool: { key: string; version: number; effect: string } | null;
  stepId: string;
  errorCode: string | null;
  errorField: string | null;
  decision: ToolDecision;
  proposalId: string | null;
  durationMs: number;
}

/** The outcome of a dispatched call, on its `execute_tool` span and in the tool-call metrics. */
export function noteToolCall(note: ToolCallNote): void {
  const span = activeSpan();
  const name = note.tool ? note.tool.key : "unknown";
  if (span) {
    span.updateName(`execute_tool ${name}`);
    span.setAttributes({
      "gen_ai.tool.name": name,
      "guichet.step.id": note.stepId,
      "guichet.decision": note.decision,
      ...(note.tool ? { "guichet.tool.version": note.tool.version, "guichet.tool.effect": note.tool.effect } : {}),
      ...(note.errorCode ? { "guichet.error.code": note.errorCode } : {}),
      ...(note.proposalId ? { "guichet.proposal.id": note.proposalId } : {}),
    });
    // A write waiting for people is not a failure of the call.
    if (note.errorCode && note.decision !== "pending_approval") failSpan(span, note.errorCode);
  }
  const m = metrics();
  if (!m) return;
  const tool = note.tool ? `${note.tool.key}@${note.tool.version}` : "unknown";
  const outcome = note.errorCode ? "error" : "ok";
  m.toolCalls.inc({ tool, outcome, code: note.errorCode ?? "ok" });
  m.toolDuration.observe({ tool, outcome }, note.durationMs / 1000);
}

/** Validation refusals, by code and field (the dispatcher's record knows which codes are validation). */
export function noteValidationError(code: string, field: string | null): void {
  metrics()?.validationErrors.inc({ code, field: fieldLabel(field) });
}

/** An upstream MCP call (`tools/call {name}`): `work` receives the `_meta` carrying the trace, if any. */
export function inMcpClientSpan<T>(
  target: { url: string; tool: string },
  work: (meta: Record<string, string> | undefined) => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return work(undefined);
  return inSpan(
    `tools/call ${target.tool}`,
    {
      kind: KIND.client,
      attributes: {
        "mcp.method.name": "tools/call",
        [GENAI_OPERATION]: "execute_tool",
        "gen_ai.tool.name": target.tool,
        "network.protocol.name": "http",
        ...serverOf(target.url),
      },
      errorType: failureCode,
    },
    () => work(traceCarrier() ?? undefined),
  );
}

const TOOL_NAME = /^[A-Za-z0-9_.@-]{1,160}$/;

/** An MCP request Guichet serves, continuing the trace of the client's `params._meta.traceparent`. */
export function inMcpServerSpan<T>(
  method: string,
  name: string | undefined,
  meta: unknown,
  work: () => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return work();
  const named = name !== undefined && TOOL_NAME.test(name) ? name : undefined;
  const carrier = meta && typeof meta === "object" ? (meta as Record<string, unknown>) : {};
  return inSpan(
    named ? `${method} ${named}` : method,
    {
      kind: KIND.server,
      attributes: {
        "mcp.method.name": method,
        ...(named ? { "gen_ai.tool.name": named, [GENAI_OPERATION]: "execute_tool" } : {}),
      },
      carrier: {
        traceparent: typeof carrier.traceparent === "string" ? carrier.traceparent : undefined,
        tracestate: typeof carrier.tracestate === "string" ? carrier.tracestate : undefined,
      },
      preferCarrier: true,
    },
    () => work(),
  );
}

/** A person's decision on a proposal, timed from the proposal's creation in the metrics. */
export function inDecisionSpan<T>(
  proposalId: string,
  decision: "approve" | "refuse",
  work: () => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return work();
  return inSpan(
    `guichet.proposal.${decision}`,
    { attributes: { "guichet.proposal.id": proposalId, "guichet.decision": decision } },
    () => work(),
  );
}

/** The commit of an approved proposal: the one moment a write reaches a service. */
export function inCommitSpan<T>(
  proposalId: string,
  tool: { key: string; version: number },
  work: () => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return work();
  return inSpan(
    "guichet.proposal.commit",
    {
      attributes: {
        "guichet.proposal.id": proposalId,
        "gen_ai.tool.name": tool.key,
        "guichet.tool.version": tool.version,
      },
      errorType: failureCode,
    },
    () => work(),
  );
}

/** A background job, continuing the trace of the request that enqueued it. */
export function inJobSpan<T>(name: string, carrier: unknown, work: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return work();
  return underCarrier(carrier, () => inSpan(`job ${name}`, { attributes: { "guichet.job.name": name } }, () => work()));
}

/** Job data carrying the enqueuing request's trace (only when tracing is on). */
export function withJobTrace<T extends object>(data: T): T {
  const carrier = traceCarrier();
  return carrier ? { ...data, [JOB_TRACE_KEY]: carrier } : data;
}

export const JOB_TRACE_KEY = "_trace";
