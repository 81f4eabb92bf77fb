import "server-only";
import { timingSafeEqual } from "node:crypto";
import { jobQueueStats } from "@/lib/db/job-queue-stats";
import { env } from "@/lib/env";
import { ApiError, notFound, toErrorEnvelope } from "@/lib/http/errors";
import { newId } from "@/lib/ids";
import { metrics } from "./metrics";

// GET /metrics — the Prometheus exposition, for the bearer token of
// GUICHET_METRICS_TOKEN only. Unset: 404, as if the route did not exist; a
// missing or wrong token: 401. The answer holds counters by route, tool, code
// and status — no organization's id and no payload — but it tells how the
// instance is used, so it is not public.

function bearerMatches(header: string | null, token: string): boolean {
  const match = /^Bearer (.+)$/.exec(header ?? "");
  if (!match) return false;
  const given = Buffer.from(match[1]);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The API's error envelope, so that a client reads a refusal here as anywhere else. */
function refusal(error: ApiError): Response {
  const { status, body, headers } = toErrorEnvelope(error, newId("req"));
  return Response.json(body, { status, headers });
}

export async function metricsResponse(request: Request): Promise<Response> {
  const registry = metrics();
  const token = env.GUICHET_METRICS_TOKEN;
  if (!registry || !token) return refusal(notFound());
  if (!bearerMatches(request.headers.get("authorization"), token))
    return refusal(new ApiError("unauthenticated", "Send Authorization: Bearer <GUICHET_METRICS_TOKEN>."));
  // Gauges read at scrape time: the queue as it is now, in this instance's database.
  registry.jobsWaiting.reset();
  registry.jobsOldest.reset();
  for (const stat of await jobQueueStats().catch(() => [])) {
    registry.jobsWaiting.set({ queue: stat.queue }, stat.waiting);
    registry.jobsOldest.set({ queue: stat.queue }, stat.oldestAgeSeconds);
  }
  return new Response(await registry.registry.metrics(), {
    headers: { "content-type": registry.registry.contentType, "cache-control": "no-store" },
  });
}
