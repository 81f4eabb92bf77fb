import { describe, expect, it } from "vitest";
import { tracingRequested } from "./tracing-switch";

describe("tracingRequested", () => {
  it("is off without OpenTelemetry variables, so the SDK is never loaded", () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_SERVICE_NAME: "guichet" })).toBe(false);
  });

  it("is on with an OTLP endpoint, or OTEL_TRACES_EXPORTER=otlp", () => {
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: "otlp" })).toBe(true);
  });

  it("is off when the variables say so, whatever the endpoint", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
    expect(tracingRequested({ ...endpoint, OTEL_TRACES_EXPORTER: "none" })).toBe(false);
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: "true" })).toBe(false);
  });
});
