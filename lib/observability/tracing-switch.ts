// Whether the environment asks for traces, by the OpenTelemetry variables: an OTLP
// endpoint, or OTEL_TRACES_EXPORTER=otlp; OTEL_TRACES_EXPORTER=none and
// OTEL_SDK_DISABLED=true turn it off whatever else is set. Read by
// instrumentation.ts before anything of the SDK is loaded.
export function tracingRequested(variables: Record<string, string | undefined>): boolean {
  if (variables.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporter = variables.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === "none") return false;
  if (exporter === "otlp") return true;
  return Boolean(variables.OTEL_EXPORTER_OTLP_ENDPOINT || variables.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}
