import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, connectCrm, createAgent, createRun } from "./dispatch-fixtures";
import { baseUrl, createTenant, suiteNetwork, until, type Tenant } from "./helpers";
import { freePort, startApp } from "./server";

// Prometheus: the real server (Debian's `prometheus`, installed by npm test)
// scrapes an instance that has GUICHET_METRICS_TOKEN, with that bearer token,
// and a PromQL query over its HTTP API returns the tool calls this file made —
// a refusal inside a 200 answer counted as an error. Without the token /metrics
// is 401; on an instance without the variable (the suite's) it is 404.

const PROMETHEUS = process.env.PROMETHEUS_PATH ?? "/usr/bin/prometheus";
const token = randomBytes(24).toString("hex");
let instance: Awaited<ReturnType<typeof startApp>>;
let prometheus: ChildProcess;
let prometheusUrl: string;
let storage: string;
let tenant: Tenant;
let prometheusLog = "";

beforeAll(async () => {
  tenant = await createTenant("pro");
  instance = await startApp({
    ...process.env,
    NODE_ENV: "production",
    ...suiteNetwork(),
    GUICHET_METRICS_TOKEN: token,
  });
  storage = mkdtempSync(path.join(os.tmpdir(), "guichet-prometheus-"));
  const target = new URL(instance.baseUrl).host;
  writeFileSync(
    path.join(storage, "prometheus.yml"),
    [
      "global:",
      "  scrape_interval: 1s",
      "scrape_configs:",
      "  - job_name: guichet",
      "    metrics_path: /metrics",
      "    authorization:",
      "      type: Bearer",
      `      credentials: ${token}`,
      "    static_configs:",
      `      - targets: ["${target}"]`,
      "",
    ].join("\n"),
  );
  const port = await freePort();
  prometheusUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    PROMETHEUS,
    [
      `--config.file=${path.join(storage, "prometheus.yml")}`,
      `--storage.tsdb.path=${path.join(storage, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  prometheus.stdout!.on("data", (chunk) => (prometheusLog += chunk));
  prometheus.stderr!.on("data", (chunk) => (prometheusLog += chunk));
  await until(
    async () => (await fetch(`${prometheusUrl}/-/ready`).catch(() => null))?.ok || null,
    "Prometheus to be ready",
  );
}, 120_000);

afterAll(async () => {
  if (prometheus && prometheus.exitCode === null) {
    const closed = new Promise((resolve) => prometheus.on("close", resolve));
    prometheus.kill("SIGTERM");
    await closed;
  }
  if (storage) rmSync(storage, { recursive: true, force: true });
  await instance?.stop();
});

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

async function query(promql: string): Promise<Sample[]> {
  const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await response.json()) as { status: string; data: { result: Sample[] } };
  if (body.status !== "success") throw new Error(`PromQL ${promql}: ${JSON.stringify(body)}`);
  return body.data.result;
}

describe("/metrics", () => {
  it("answers 401 without the bearer token or with another one, 404 where GUICHET_METRICS_TOKEN is unset", async () => {
    const missing = await fetch(`${instance.baseUrl}/metrics`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: "unauthenticated" } });
    const wrong = await fetch(`${instance.baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}x` } });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${instance.baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(right.status).toBe(200);
    expect(right.headers.get("content-type")).toContain("text/plain");
    expect(await right.text()).toContain("# TYPE guichet_tool_calls_total counter");
    // The suite's instance has no token: the route does not exist there.
    const off = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(off.status).toBe(404);
    expect(await off.json()).toMatchObject({ error: { code: "not_found" } });
  });

  it("is scraped by Prometheus, whose PromQL returns the tool calls made, refusals as errors", async () => {
    const crm = await connectCrm(tenant);
    const agent = await createAgent(tenant, { tools: [crm.key("get_customer")] });
    const { run } = await createRun(tenant, { agent: agent.id });
    const tool = crm.key("get_customer");
    for (let i = 0; i < 3; i++) {
      const ok = await callTool(tenant, run.id, tool, { customer_id: "C-1842" }, instance.baseUrl);
      expect(ok.ok).toBe(true);
    }
    // Refused by CRM Acme inside a 200 answer, and refused by the contract before leaving: both errors.
    const unknown = await callTool(tenant, run.id, tool, { customer_id: "C-0000" }, instance.baseUrl);
    expect(unknown.ok).toBe(false);
    const invalid = await callTool(tenant, run.id, tool, { customer_id: 42 }, instance.baseUrl);
    expect(invalid).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENTS", field: "/customer_id" } });

    const counts = await until(async () => {
      const result = await query(`sum by (outcome) (guichet_tool_calls_total{tool="${tool}@1"})`);
      const byOutcome = Object.fromEntries(result.map((s) => [s.metric.outcome, Number(s.value[1])]));
      return byOutcome.ok === 3 && byOutcome.error === 2 ? byOutcome : null;
    }, "Prometheus to have scraped the tool calls");
    expect(counts).toEqual({ ok: 3, error: 2 });
    expect(await query(`guichet_validation_errors_total{code="INVALID_ARGUMENTS",field="/customer_id"}`)).toEqual([
      expect.objectContaining({ value: [expect.any(Number), "1"] }),
    ]);
    const requests = await query(`sum(guichet_http_requests_total{route="/v1/runs/{run}/tool_calls",status="200"})`);
    expect(Number(requests[0]?.value[1])).toBe(5);
    expect(await query(`up{job="guichet"}`)).toEqual([expect.objectContaining({ value: [expect.any(Number), "1"] })]);
  });

  it("keeps ids out of every label", async () => {
    const series = await fetch(
      `${prometheusUrl}/api/v1/series?match[]=${encodeURIComponent('{job="guichet",__name__=~"guichet_.*"}')}`,
    );
    const { data } = (await series.json()) as { data: Record<string, string>[] };
    expect(data.length).toBeGreaterThan(5);
    for (const labels of data)
      for (const [name, value] of Object.entries(labels)) {
        if (name === "instance" || name === "tool") continue;
        // run_…, prop_…, org_…, req_… ids, or any raw path with one.
        expect(value, `${labels.__name__} ${name}`).not.toMatch(
          /(^|[/_])(run|prop|org|req|step|agt|mem|key)_[0-9a-z]{10,}/,
        );
      }
  });
});
