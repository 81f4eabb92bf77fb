import { percentile } from "./stats";
import { createScript } from "@/connectors/model-sim/control";
import type { TestStack } from "../test-stack";

// A managed run of five read tool calls against model-sim (instant answers),
// next to the same five calls made client-driven. Guichet's own overhead per
// model step is the run's total time minus the time its model calls took (as
// the provider client measured them), divided by the model calls (6). It
// includes what makes the run durable: the lease taken with the run, the
// conversation stored after each model answer and each tool result.

const TOOL_CALLS = 5;

async function post(stack: TestStack, key: string, path: string, body: unknown): Promise<{ data: unknown }> {
  const response = await fetch(stack.baseUrl + path, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { data: unknown };
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${JSON.stringify(json)}`);
  return json;
}

export async function measureManagedRuns(stack: TestStack, key: string, iterations: number) {
  const agent = (
    await post(stack, key, "/v1/agents", { name: `Bench managed ${Date.now()}`, instructions: "Calcule." })
  ).data as { id: string };
  const call = { name: "calculate", arguments: { expression: "6*7" } };
  const script = await createScript(stack.simBaseUrl, {
    turns: [...Array.from({ length: TOOL_CALLS }, () => ({ tool_calls: [call] })), { text: "42" }],
    replay: "by_conversation",
  });
  const managed: number[] = [];
  const overheadPerStep: number[] = [];
  const driven: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    let started = performance.now();
    const run = (
      await post(stack, key, "/v1/runs", {
        agent: agent.id,
        input: "6 × 7, cinq fois ?",
        instructions: script.marker,
        // The loop runs in the background; `wait` answers once it ended, woken by the run's last event.
        wait: 60,
      })
    ).data as { status: string; usage: { model_calls: { duration_ms: number }[] } };
    const total = performance.now() - started;
    if (run.status !== "completed") throw new Error(`managed run ended ${run.status}`);
    const modelMs = run.usage.model_calls.reduce((sum, c) => sum + c.duration_ms, 0);
    managed.push(total);
    overheadPerStep.push((total - modelMs) / run.usage.model_calls.length);
    started = performance.now();
    const created = (await post(stack, key, "/v1/runs", { agent: agent.id })).data as { id: string };
    for (let c = 0; c < TOOL_CALLS; c += 1)
      await post(stack, key, `/v1/runs/${created.id}/tool_calls`, { tool: call.name, arguments: call.arguments });
    driven.push(performance.now() - started);
  }
  return {
    managed: { p50: percentile(managed, 0.5), p99: percentile(managed, 0.99) },
    clientDriven: { p50: percentile(driven, 0.5), p99: percentile(driven, 0.99) },
    overheadPerStep: { p50: percentile(overheadPerStep, 0.5), p99: percentile(overheadPerStep, 0.99) },
  };
}
