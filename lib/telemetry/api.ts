import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { TelemetryObject, TelemetryQuery } from "./schemas";

export * from "./schemas";

export const telemetryEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/telemetry",
  tag: "Telemetry",
  summary:
    "Tool-call counters of the organization (per tool@version, error code and field, retry class), hour by hour — never payloads",
  auth: "both",
  scopes: ["runs:read"],
  query: TelemetryQuery,
  response: z.object({ data: TelemetryObject }),
});
