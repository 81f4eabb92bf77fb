import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { env } from "@/lib/env";

// Prometheus metrics (GET /metrics, ./metrics-route.ts). Collected only when
// GUICHET_METRICS_TOKEN is set: otherwise every `note…` below returns at once.
//
// Labels are bounded: route templates (never raw paths), tool keys with their
// version, typed codes, JSON pointers with array indexes folded to `*`, statuses
// and decisions. No organization, run, proposal or member id is ever a label.
//
// One registry per process, kept on globalThis: Next bundles routes separately
// and each bundle would otherwise register its own copy of every metric.

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const DECISION_BUCKETS = [1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 24 * 3600];
const STEP_BUCKETS = [1, 2, 3, 5, 8, 13, 20, 50];

export function createMetrics() {
  const registry = new Registry();
  const registers = [registry];
  return {
    registry,
    httpRequests: new Counter({
      name: "guichet_http_requests_total",
      help: "HTTP requests answered, by route template, method and status.",
      labelNames: ["route", "method", "status"] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: "guichet_http_request_duration_seconds",
      help: "Time to answer an HTTP request (until its headers), by route template, method and status.",
      labelNames: ["route", "method", "status"] as const,
      buckets: DURATION_BUCKETS,
      registers,
    }),
    toolCalls: new Counter({
      name: "guichet_tool_calls_total",
      help: "Tool calls through the dispatcher, by tool@version and outcome (a refusal in a successful answer is an error).",
      labelNames: ["tool", "outcome", "code"] as const,
      registers,
    }),
    toolDuration: new Histogram({
      name: "guichet_tool_call_duration_seconds",
      help: "Dispatcher time of a tool call, by tool@version and outcome.",
      labelNames: ["tool", "outcome"] as const,
      buckets: DURATION_BUCKETS,
      registers,
    }),
    validationErrors: new Counter({
      name: "guichet_validation_errors_total",
      help: "Tool calls refused before execution, by code and argument field (JSON pointer, array indexes as *).",
      labelNames: ["code", "field"] as const,
      registers,
    }),
    memberConnections: new Counter({
      name: "guichet_mcp_connection_events_total",
      help: "Members' own connections to connectors: connected, refreshed, refresh_failed, disconnected (never a token).",
      labelNames: ["event"] as const,
      registers,
    }),
    decisions: new Counter({
      name: "guichet_proposal_decisions_total",
      help: "Decisions on proposals, by decision (approve, refuse).",
      labelNames: ["decision"] as const,
      registers,
    }),
    decisionDelay: new Histogram({
      name: "guichet_proposal_decision_seconds",
      help: "Time from a proposal's creation to a decision on it.",
      labelNames: ["decision"] as const,
      buckets: DECISION_BUCKETS,
      registers,
    }),
    settled: new Counter({
      name: "guichet_operations_settled_total",
      help: "Writes whose outcome needed the service's status protocol: unknown outcomes and version conflicts, by tool@version.",
      labelNames: ["tool", "outcome"] as const,
      registers,
    }),
    runs: new Counter({
      name: "guichet_managed_runs_total",
      help: "Managed-run loops that stopped, by the run's status then (completed, failed, requires_approval, requires_action, cancelled…).",
      labelNames: ["status"] as const,
      registers,
    }),
    runSteps: new Histogram({
      name: "guichet_managed_run_steps",
      help: "Model calls made by one stretch of a managed run's loop.",
      buckets: STEP_BUCKETS,
      registers,
    }),
    modelCalls: new Counter({
      name: "guichet_model_calls_total",
      help: "Model calls of managed runs, by provider and outcome (ok or the failure code).",
      labelNames: ["provider", "outcome"] as const,
      registers,
    }),
    modelTokens: new Counter({
      name: "guichet_model_tokens_total",
      help: "Model tokens of managed runs, by provider and direction (input, output).",
      labelNames: ["provider", "direction"] as const,
      registers,
    }),
    rateLimited: new Counter({
      name: "guichet_rate_limit_refusals_total",
      help: "Requests and tool calls refused by a rate limit, by scope (api, run, organization).",
      labelNames: ["scope"] as const,
      registers,
    }),
    rateLimitFallbacks: new Counter({
      name: "guichet_rate_limit_store_fallbacks_total",
      help: "Rate-limit counts taken in the database because Redis (REDIS_URL) was away.",
      registers,
    }),
    deliveries: new Counter({
      name: "guichet_delivery_attempts_total",
      help: "Webhook and e-mail delivery attempts, by channel and outcome (succeeded, failed).",
      labelNames: ["channel", "outcome"] as const,
      registers,
    }),
    jobsWaiting: new Gauge({
      name: "guichet_job_queue_depth",
      help: "Background jobs waiting to start (due now or later), by queue.",
      labelNames: ["queue"] as const,
      registers,
    }),
    jobsOldest: new Gauge({
      name: "guichet_job_queue_oldest_age_seconds",
      help: "Age of the oldest job due and not yet started, by queue.",
      labelNames: ["queue"] as const,
      registers,
    }),
  };
}

export type GuichetMetrics = ReturnType<typeof createMetrics>;

const slot = globalThis as unknown as { guichetMetrics?: GuichetMetrics };

/** The metrics, or null when /metrics is off (no token): callers then record nothing. */
export function metrics(): GuichetMetrics | null {
  if (!env.GUICHET_METRICS_TOKEN) return null;
  return (slot.guichetMetrics ??= createMetrics());
}

/** A JSON pointer as a label: indexes folded (`/items/3/sku` → `/items/*\/sku`), length bounded. */
export function fieldLabel(field: string | null | undefined): string {
  if (!field) return "";
  return field.replace(/\/\d+(?=\/|$)/g, "/*").slice(0, 120);
}

export function noteHttpRequest(route: string, method: string, status: number, seconds: number): void {
  const m = metrics();
  if (!m) return;
  const labels = { route, method, status: String(status) };
  m.httpRequests.inc(labels);
  m.httpDuration.observe(labels, seconds);
}

export function noteMemberConnection(event: "connected" | "refreshed" | "refresh_failed" | "disconnected"): void {
  metrics()?.memberConnections.inc({ event });
}

export function noteRateLimited(scope: "api" | "run" | "organization"): void {
  metrics()?.rateLimited.inc({ scope });
}

export function noteRateLimitStoreFallback(): void {
  metrics()?.rateLimitFallbacks.inc();
}

export function noteDelivery(channel: string, ok: boolean): void {
  metrics()?.deliveries.inc({
    channel: channel === "webhook" ? "webhook" : "email",
    outcome: ok ? "succeeded" : "failed",
  });
}

export function noteDecision(decision: "approve" | "refuse", proposalCreatedAt: Date): void {
  const m = metrics();
  if (!m) return;
  m.decisions.inc({ decision });
  m.decisionDelay.observe({ decision }, Math.max(0, (Date.now() - proposalCreatedAt.getTime()) / 1000));
}

/** Conflicts and unknown outcomes, as the operations engine counts them in telemetry. */
export function noteSettled(events: { metric: string; tool?: string; version?: number }[]): void {
  const m = metrics();
  if (!m) return;
  for (const event of events) {
    if (event.metric !== "unknown_outcome" && event.metric !== "conflict") continue;
    m.settled.inc({ tool: `${event.tool ?? ""}@${event.version ?? 0}`, outcome: event.metric });
  }
}
