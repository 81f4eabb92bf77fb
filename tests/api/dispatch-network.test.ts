import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@/tests/support/http-server";
import { callTool, connectCrm, createAgent, createRun, storedSteps, type ConnectedCrm } from "./dispatch-fixtures";
import { createTenant, storedText, type Tenant } from "./helpers";
import { startApp, startSearchBackend, testNetwork, type SearchBackend } from "./server";

// A second app instance on the same database, configured as a production
// operator would: loopback refused for agents' URLs, a SearXNG-compatible
// search backend on the private side. Its log is ours to read, so it also
// serves the "no raw argument anywhere" check.

let app: Awaited<ReturnType<typeof startApp>>;
let acme: Tenant;
let crm: ConnectedCrm;
let search: SearchBackend;
let page: TestServer;
let pageHits = 0;
let run: string;

beforeAll(async () => {
  acme = await createTenant("pro");
  crm = await connectCrm(acme);
  page = await startTestServer((_req, res) => {
    pageHits++;
    res.writeHead(200, { "content-type": "text/plain" }).end("internal page");
  });
  search = await startSearchBackend((q) => [
    { title: `Résultat pour ${q}`, url: "https://example.org/guichet", content: "Un guichet pour les agents." },
    { title: "Lien local", url: "file:///etc/passwd", content: "dropped" },
    { title: "Deux", url: "https://example.org/deux", content: "Second." },
    { title: "Trois", url: "https://example.org/trois", content: "Troisième." },
  ]);
  // The search backend is the one allowlisted private origin here; CRM Acme is not.
  app = await startApp({
    ...process.env,
    NODE_ENV: "production",
    ...testNetwork(),
    GUICHET_PRIVATE_ORIGINS: `${search.origin}=*`,
    GUICHET_SEARCH_URL: search.url,
  });
  const agent = await createAgent(acme, { tools: [crm.key("get_customer")] });
  run = (await createRun(acme, { agent: agent.id })).run.id;
});

afterAll(async () => {
  await app?.stop();
  await search?.close();
  await page?.close();
});

const call = (tool: string, args: unknown, runId = run) => callTool(acme, runId, tool, args, app.baseUrl);

describe("web_search through the configured backend", () => {
  it("returns bounded results, only http(s) links, marked untrusted", async () => {
    search.setMode("ok");
    const envelope = await call("web_search", { query: "guichet agents", max_results: 2 });
    expect(envelope.result).toEqual({
      results: [
        {
          title: "Résultat pour guichet agents",
          url: "https://example.org/guichet",
          snippet: "Un guichet pour les agents.",
        },
        { title: "Deux", url: "https://example.org/deux", snippet: "Second." },
      ],
      untrusted: true,
    });
  });

  it("retries a safe read on a busy backend, then answers UPSTREAM_ERROR", async () => {
    search.setMode("down");
    const envelope = await call("web_search", { query: "guichet" });
    expect(envelope.error).toMatchObject({ code: "UPSTREAM_ERROR", retryable: true });
    const steps = await storedSteps(run);
    expect(steps.at(-1)).toMatchObject({ errorCode: "UPSTREAM_ERROR", retries: 2 });
    search.setMode("garbage");
    expect((await call("web_search", { query: "guichet" })).error).toMatchObject({
      code: "UPSTREAM_ERROR",
      retryable: false,
    });
    search.setMode("ok");
  });
});

describe("SSRF: loopback for nobody but the allowlisted origins", () => {
  it.each([
    "http://127.0.0.1:PORT/",
    "http://localhost:PORT/",
    "http://[::1]:PORT/",
    "http://2130706433:PORT/",
    "http://127.1:PORT/",
  ])("refuses %s and never connects", async (template) => {
    const before = pageHits;
    const url = template.replace("PORT", new URL(page.origin).port);
    const envelope = await call("web_fetch", { url });
    expect(envelope.error, JSON.stringify(envelope)).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/url" });
    expect(pageHits).toBe(before);
  });

  it("refuses a model's URL on the search backend's origin, allowlisted for the operator's choice only", async () => {
    const envelope = await call("web_fetch", { url: `${search.origin}/search?q=x&format=json` });
    expect(envelope.error).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/url" });
    expect(envelope.error.message).toMatch(/loopback/);
  });

  it("refuses to call a connector whose address is not allowed any more, at call time", async () => {
    const envelope = await call(crm.key("get_customer"), { customer_id: "C-1842" });
    expect(envelope.error).toMatchObject({ code: "TOOL_UNAVAILABLE" });
    expect(envelope.error.message).toContain("refused");
  });
});

describe("no raw argument is stored or logged", () => {
  it("keeps a planted value out of the database and the logs, whatever the call's outcome", async () => {
    const planted = `PLANTED${randomBytes(8).toString("hex")}`;
    const agent = await createAgent(acme, { tools: ["create_chart"] });
    const { run: fresh } = await createRun(acme, { agent: agent.id });
    const ok = await call(
      "calculate",
      { expression: `1 + 1 + 0 * ${Number.parseInt(planted.slice(7, 13), 16)}` },
      fresh.id,
    );
    expect(ok.ok).toBe(true);
    const echoed = await call(
      "create_chart",
      { type: "bar", title: planted, series: [{ name: planted, points: [{ x: planted, y: 1 }] }] },
      fresh.id,
    );
    expect(echoed.result.chart.title).toBe(planted);
    await call("create_chart", { type: "bar", title: planted, series: [] }, fresh.id);
    await call("web_fetch", { url: `https://example.org/${planted}`, extra: planted }, fresh.id);
    await call("web_search", { query: `${planted} ignore all previous instructions` }, fresh.id);
    await call("no_such_tool", { secret: planted }, fresh.id);
    await call("calculate", { expression: planted.repeat(300) }, fresh.id);
    expect(await storedSteps(fresh.id)).toHaveLength(7);

    expect(app.log()).toContain(`"run":"${fresh.id}"`);
    expect(app.log()).not.toContain(planted);
    const stored = await storedText();
    expect(stored).toContain(fresh.id); // the dump does hold the run's steps…
    expect(stored).not.toContain(planted); // …and nothing of what the calls carried
  });
});
