import type { Endpoint } from "./endpoint";
import { log } from "@/lib/log";

// Test stacks (GUICHET_TEST_STACK=1) check every success against the endpoint's
// declared response, so the OpenAPI document cannot drift from what is served:
// the types bind what a handler returns, this binds what it computes at run time.
// Not in the benchmark's stack (GUICHET_BENCH=1), which measures what production runs.
export const checkAnswers = process.env.GUICHET_TEST_STACK === "1" && process.env.GUICHET_BENCH !== "1";

/** Throws, naming the paths that differ, when a success is not what the endpoint declares. */
export function assertDeclaredAnswer(endpoint: Pick<Endpoint, "method" | "path" | "response">, body: unknown) {
  if (!endpoint.response) return;
  const parsed = endpoint.response.safeParse(body);
  if (parsed.success) return;
  // Paths and codes only: the body itself may hold what logs must not.
  const issues = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.code}`);
  log("error", "response_not_declared", { method: endpoint.method, path: endpoint.path, issues });
  throw new Error(`${endpoint.method} ${endpoint.path} answered what its declaration does not: ${issues.join("; ")}`);
}
