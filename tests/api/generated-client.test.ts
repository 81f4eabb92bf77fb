import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl, createTenant, testDb, type Tenant } from "./helpers";

// What a customer does with the committed document: generate types with
// openapi-typescript, write a script with openapi-fetch, type-check it, run it.
// The generated files live in a throwaway folder under test-results/ (ignored).

const dir = path.resolve("test-results", `generated-client-${process.pid}`);

// List tools, create an agent, start a run, call a tool — typed end to end.
const journey = `import createClient from "openapi-fetch";
import type { components, paths } from "./schema";

const client = createClient<paths>({ baseUrl: process.env.BASE_URL!, headers: { authorization: \`Bearer \${process.env.API_KEY}\` } });

const tools = await client.GET("/v1/tools");
if (!tools.data) throw new Error(\`list tools: \${tools.response.status}\`);
const keys: string[] = tools.data.data.map((tool) => tool.key);

const created = await client.POST("/v1/agents", { body: { name: process.env.AGENT_NAME!, instructions: "Calcule." } });
if (!created.data) throw new Error(\`create agent: \${JSON.stringify(created.error)}\`);
const agent: components["schemas"]["Agent"] = created.data.data;

// openapi-typescript makes fields with a default required in generated types, so they are sent.
const started = await client.POST("/v1/runs", { body: { agent: agent.id, capabilities: "read", debug: false } });
// Without stream: true the answer is JSON; the declared responses also list the event stream's events.
type Run = components["schemas"]["Run"];
const isRun = (value: unknown): value is Run => typeof value === "object" && value !== null && "capabilities" in value;
if (!started.data || !isRun(started.data.data)) throw new Error(\`start run: \${JSON.stringify(started.error)}\`);
const run: Run = started.data.data;

const called = await client.POST("/v1/runs/{run}/tool_calls", { params: { path: { run: run.id } }, body: { tool: "calculate", arguments: { expression: "6 * 7" } } });
if (!called.data) throw new Error(\`call tool: \${JSON.stringify(called.error)}\`);
const envelope: components["schemas"]["ToolCallEnvelope"] = called.data;

const refused = await client.GET("/v1/agents/{agent}", { params: { path: { agent: "agt_00000000000000000000000000" } } });
const error: components["schemas"]["Error"] | undefined = refused.error;

console.log(JSON.stringify({ keys, agent: agent.id, run: run.id, envelope, refused: { status: refused.response.status, code: error?.error.code } }));
`;

// A request the API refuses must not compile: POST /v1/runs needs a body, with an agent.
const wrong = `import createClient from "openapi-fetch";
import type { paths } from "./schema";

const client = createClient<paths>({ baseUrl: "http://localhost" });
await client.POST("/v1/runs", {});
await client.POST("/v1/runs", { body: { capabilities: "read", debug: false } });
`;

function node(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, args, { encoding: "utf8", env: { ...process.env, ...env } });
  return { status: result.status, output: `${result.stdout}${result.stderr}`, stdout: result.stdout };
}

const tsconfig = (files: string[]) =>
  JSON.stringify({
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: "ES2022",
      module: "ESNext",
      moduleResolution: "Bundler",
      types: ["node"],
      skipLibCheck: true,
    },
    files,
  });

let acme: Tenant;

beforeAll(async () => {
  acme = await createTenant("pro");
  mkdirSync(dir, { recursive: true });
  const generated = node([
    "node_modules/openapi-typescript/bin/cli.js",
    "openapi/openapi.json",
    "-o",
    path.join(dir, "schema.d.ts"),
  ]);
  if (generated.status !== 0) throw new Error(`openapi-typescript failed:\n${generated.output}`);
  writeFileSync(path.join(dir, "journey.ts"), journey);
  writeFileSync(path.join(dir, "wrong.ts"), wrong);
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a client generated from openapi/openapi.json", () => {
  it("type-checks a script that lists tools, creates an agent, starts a run and calls a tool", () => {
    writeFileSync(path.join(dir, "tsconfig.json"), tsconfig(["schema.d.ts", "journey.ts"]));
    const checked = node(["node_modules/typescript/bin/tsc", "-p", dir]);
    expect(checked.output).toBe("");
    expect(checked.status).toBe(0);
  });

  it("does not compile POST /v1/runs without its required body fields", () => {
    writeFileSync(path.join(dir, "tsconfig.json"), tsconfig(["schema.d.ts", "wrong.ts"]));
    const checked = node(["node_modules/typescript/bin/tsc", "-p", dir]);
    expect(checked.status).not.toBe(0);
    // Line 5: no body at all; line 6: a body without `agent`.
    expect(checked.output).toMatch(/wrong\.ts\(5,\d+\): error TS\d+: [^\n]*\{ body: \{ agent: string;/);
    expect(checked.output).toMatch(/wrong\.ts\(6,\d+\): error TS\d+/);
    expect(checked.output).toContain("Property 'agent' is missing");
  });

  it("runs that script against the server, with typed results and a typed error", async () => {
    const name = `Client généré ${process.pid}`;
    const ran = node(["node_modules/tsx/dist/cli.mjs", path.join(dir, "journey.ts")], {
      BASE_URL: baseUrl,
      API_KEY: acme.key,
      AGENT_NAME: name,
    });
    expect(ran.status, ran.output).toBe(0);
    const outcome = JSON.parse(ran.stdout.trim().split("\n").pop()!);
    expect(outcome.keys).toContain("calculate");
    expect(outcome.envelope).toMatchObject({
      ok: true,
      result: { expression: "6 * 7", result: 42 },
      evidence: { run: outcome.run, tool: "calculate@1" },
    });
    expect(outcome.refused).toEqual({ status: 404, code: "not_found" });
    const db = await testDb();
    expect(await db.agent.findUnique({ where: { id: outcome.agent } })).toMatchObject({
      organizationId: acme.organizationId,
      name,
    });
    expect(await db.run.findUnique({ where: { id: outcome.run } })).toMatchObject({
      organizationId: acme.organizationId,
      agentId: outcome.agent,
    });
    expect(await db.step.count({ where: { runId: outcome.run } })).toBe(1);
  });
});
