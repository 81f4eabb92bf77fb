import * as api from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { disableTracing, enableTracing } from "./tracing";

// The OpenTelemetry SDK, loaded by instrumentation.ts only when tracing is asked
// for (./tracing-switch.ts). The exporter reads the standard variables itself
// (OTEL_EXPORTER_OTLP_ENDPOINT or _TRACES_ENDPOINT, _HEADERS, _TIMEOUT), the
// resource OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, the batch processor
// OTEL_BSP_*. Only the W3C trace context is propagated: baggage a caller sent is
// not passed on to MCP servers and model providers (it is the caller's data).

/** Starts the SDK; answers a function that sends what is left and stops it (the benchmark turns tracing off again). */
export function startTracing(): () => Promise<void> {
  const resource = resourceFromAttributes({ "service.name": "guichet" }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  enableTracing(api, api.trace.getTracer("guichet"));
  // Spans still in the batch are sent before the process ends.
  const flush = () => void provider.shutdown().catch(() => undefined);
  process.once("SIGTERM", flush);
  process.once("beforeExit", flush);
  return async () => {
    disableTracing();
    await provider.shutdown();
    api.trace.disable();
    api.context.disable();
    api.propagation.disable();
  };
}
