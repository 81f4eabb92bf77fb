// Runs once when the server starts. The method gate answers, on Node's own request,
// what Next cannot route (TRACE, unlisted methods, undecodable paths): see
// lib/openapi/method-gate.ts. Background jobs (lib/jobs) start here too, loaded
// on demand so this file stays free of the database and the services.
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { installMethodGate } = await import("@/lib/openapi/method-gate");
    installMethodGate();
    const { startBackgroundWork } = await import("@/lib/jobs/start");
    await startBackgroundWork();
  }
}
