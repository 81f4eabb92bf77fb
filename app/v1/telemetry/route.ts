import { handle } from "@/lib/http/handler";
import { telemetryEndpoint } from "@/lib/telemetry/api";
import { telemetrySummary } from "@/lib/telemetry/service";

// GET /v1/telemetry — tool-call counters of the organization, hour by hour, without payloads
export const GET = handle(telemetryEndpoint, async ({ principal, query }) => ({
  data: await telemetrySummary(principal.organizationId, query.hours),
}));
