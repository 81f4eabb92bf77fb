// Runs once when the server starts. The method gate answers, on Node's own request,
// what Next cannot route (TRACE, unlisted methods, undecodable paths): see
// lib/openapi/method-gate.ts.
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { installMethodGate } = await import("@/lib/openapi/method-gate");
    installMethodGate();
  }
}
