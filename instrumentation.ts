// Runs once when the server starts. The environment is validated first: an invalid
// one (a GUICHET_PRIVATE_ORIGINS entry without its grant, a malformed URL…) stops the
// server with a one-line message instead of failing request by request. The method
// gate answers, on Node's own request, what Next cannot route (TRACE, unlisted
// methods, undecodable paths): see lib/openapi/method-gate.ts. Background jobs
// (lib/jobs) and OpenTelemetry traces (lib/observability) start here too, loaded on demand so this file stays free of the
// database and the services.
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    try {
      await import("@/lib/env");
    } catch (error) {
      console.error(error instanceof Error ? error.message : String(error));
      process.exit(1);
    }
    // Traces only when the OpenTelemetry variables ask for them: otherwise the SDK is never loaded.
    const { tracingRequested } = await import("@/lib/observability/tracing-switch");
    if (tracingRequested(process.env)) (await import("@/lib/observability/start-tracing")).startTracing();
    const { installMethodGate } = await import("@/lib/openapi/method-gate");
    installMethodGate();
    const { startBackgroundWork } = await import("@/lib/jobs/start");
    await startBackgroundWork();
  }
}
