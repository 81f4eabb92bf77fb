import { metricsResponse } from "@/lib/observability/metrics-route";

export const dynamic = "force-dynamic";

// GET /metrics — Prometheus metrics, behind GUICHET_METRICS_TOKEN (see lib/observability/metrics-route.ts)
export function GET(request: Request): Promise<Response> {
  return metricsResponse(request);
}
