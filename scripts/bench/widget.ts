import { percentile } from "./stats";
import { createScript } from "@/connectors/model-sim/control";
import type { TestStack } from "../test-stack";

// Time to first streamed token through the widget's public surface (POST
// /widget/v1/conversations/{id}/messages) against the same managed run started
// through POST /v1/runs with `stream: true`: one agent, one model-sim script,
// the two taken in turn so a load spike hits both alike. The widget's extra
// work (origin, visitor token, limits, the stored message, the translation of
// the run's events) is the difference of the two p50s.

const ORIGIN = "https://bench.example";
const ANSWER = "Bonjour, votre commande part demain matin de notre entrepôt.";

async function post(stack: TestStack, path: string, body: unknown, headers: Record<string, string>) {
  const response = await fetch(stack.baseUrl + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { data: Record<string, unknown> };
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** Milliseconds from the request to the first event named `event`; the rest of the stream is read to its end. */
async function firstToken(url: string, init: RequestInit, event: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, init);
  if (!response.ok || !response.body) throw new Error(`${url}: HTTP ${response.status} ${await response.text()}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let first: number | null = null;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (first === null && text.includes(`event: ${event}\n`)) first = performance.now() - started;
  }
  if (first === null) throw new Error(`${url}: no ${event} event in ${text.slice(0, 300)}`);
  return first;
}

export async function measureWidgetFirstToken(stack: TestStack, key: string, iterations: number) {
  const auth = { authorization: `Bearer ${key}` };
  const script = await createScript(stack.simBaseUrl, { turns: [{ text: ANSWER }], replay: "by_conversation" });
  const agent = await post(stack, "/v1/agents", { name: `Bench widget ${Date.now()}`, instructions: "Réponds." }, auth);
  const widget = await post(
    stack,
    "/v1/widgets",
    {
      agent: agent.id,
      name: `Bench ${Date.now()}`,
      allowed_origins: [ORIGIN],
      instructions: script.marker,
      limits: { messages_per_visitor_per_hour: 1000, conversations_per_day: 100_000 },
    },
    auth,
  );
  const session = await post(stack, "/widget/v1/sessions", { public_key: widget.public_key }, { origin: ORIGIN });
  const visitor = { origin: ORIGIN, authorization: `Bearer ${String(session.visitor_token)}` };

  const viaWidget = async () => {
    // A new conversation each time: both runs then send the model the same single message.
    const conversation = await post(stack, "/widget/v1/conversations", {}, visitor);
    return firstToken(
      `${stack.baseUrl}/widget/v1/conversations/${String(conversation.id)}/messages`,
      {
        method: "POST",
        headers: { ...visitor, "content-type": "application/json" },
        body: JSON.stringify({ content: "Où en est ma commande ?" }),
      },
      "delta",
    );
  };
  const viaRuns = () =>
    firstToken(
      `${stack.baseUrl}/v1/runs`,
      {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({
          agent: agent.id,
          input: "Où en est ma commande ?",
          instructions: script.marker,
          stream: true,
        }),
      },
      "message.delta",
    );

  await viaRuns();
  await viaWidget();
  const widgetMs: number[] = [];
  const runsMs: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    if (i % 2 === 0) {
      runsMs.push(await viaRuns());
      widgetMs.push(await viaWidget());
    } else {
      widgetMs.push(await viaWidget());
      runsMs.push(await viaRuns());
    }
  }
  return {
    widget: { p50: percentile(widgetMs, 0.5), p99: percentile(widgetMs, 0.99) },
    runs: { p50: percentile(runsMs, 0.5), p99: percentile(runsMs, 0.99) },
    added_p50_ms: Number((percentile(widgetMs, 0.5) - percentile(runsMs, 0.5)).toFixed(2)),
  };
}

/** Prints the table `npm run bench` shows; BENCH_RUN_ITERATIONS runs of each (default 40). */
export async function widgetFirstTokenMeasures(stack: TestStack, key: string) {
  const iterations = Number(process.env.BENCH_RUN_ITERATIONS ?? 40);
  const f = await measureWidgetFirstToken(stack, key, iterations);
  console.log(
    `\nTime to first streamed token: the widget's message endpoint against POST /v1/runs (stream: true), same agent and model-sim script, ${iterations} of each, taken in turn\n`,
  );
  console.log("| path | p50 ms | p99 ms |\n|---|---|---|");
  console.log(`| POST /v1/runs, stream: true | ${f.runs.p50} | ${f.runs.p99} |`);
  console.log(`| POST /widget/v1/conversations/{id}/messages | ${f.widget.p50} | ${f.widget.p99} |`);
  console.log(`| widget − /v1/runs p50 (target ≤ 10) | ${f.added_p50_ms} | |`);
  return f;
}
