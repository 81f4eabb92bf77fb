import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upload } from "./agents-helpers";
import { connectCrm, type ConnectedCrm } from "./dispatch-fixtures";
import { baseUrl, createTenant, testDb, type Tenant } from "./helpers";
import { resetCrm } from "./proposals-helpers";

// What a customer does with the committed document: generate types with
// openapi-typescript, write a script with openapi-fetch, type-check it, run it.
// The generated files live in a throwaway folder under test-results/ (ignored).

const dir = path.resolve("test-results", `generated-client-${process.pid}`);

// The README's quickstart, typed end to end: list tools, create an agent with
// only {name, tools}, start a run with only {agent, capabilities}, preview a
// write, call a read, read a file's bytes. Fields the server defaults are left
// out, as the README does: they must be optional in the generated types.
const journey = `import createClient from "openapi-fetch";
import type { components, paths } from "./schema";

const client = createClient<paths>({ baseUrl: process.env.BASE_URL!, headers: { authorization: \`Bearer \${process.env.API_KEY}\` } });
const [preview, commit] = [process.env.PREVIEW_TOOL!, process.env.COMMIT_TOOL!];

const tools = await client.GET("/v1/tools");
if (!tools.data) throw new Error(\`list tools: \${tools.response.status}\`);
const keys: string[] = tools.data.data.map((tool) => tool.key);

const created = await client.POST("/v1/agents", { body: { name: process.env.AGENT_NAME!, tools: [preview, commit, "calculate"] } });
if (!created.data) throw new Error(\`create agent: \${JSON.stringify(created.error)}\`);
const agent: components["schemas"]["Agent"] = created.data.data;

const started = await client.POST("/v1/runs", { body: { agent: agent.id, capabilities: "read_write" } });
// The event stream (stream: true) is documented as text: a JSON answer is told apart by its type alone.
if (!started.data || typeof started.data === "string") throw new Error(\`start run: \${JSON.stringify(started.error)}\`);
const run: components["schemas"]["Run"] = started.data.data;

const previewed = await client.POST("/v1/runs/{run}/tool_calls", {
  params: { path: { run: run.id } },
  body: { tool: preview, arguments: { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } } },
});
if (!previewed.data) throw new Error(\`preview: \${JSON.stringify(previewed.error)}\`);
const proposal = previewed.data.ok ? (previewed.data.evidence.proposal as { id?: string } | undefined) : undefined;

const called = await client.POST("/v1/runs/{run}/tool_calls", { params: { path: { run: run.id } }, body: { tool: "calculate", arguments: { expression: "6 * 7" } } });
if (!called.data) throw new Error(\`call tool: \${JSON.stringify(called.error)}\`);
const envelope: components["schemas"]["ToolCallEnvelope"] = called.data;

// The bytes under each media type a file may have are documented: a client reads them as bytes, not as JSON.
type FileContent = paths["/v1/files/{file}/content"]["get"]["responses"][200]["content"];
const documented: FileContent["text/plain"] | FileContent["application/pdf"] = "";
const content = await client.GET("/v1/files/{file}/content", { params: { path: { file: process.env.FILE_ID! } }, parseAs: "arrayBuffer" });
if (!content.data) throw new Error(\`file content: \${content.response.status}\`);
const bytes = new TextDecoder().decode(content.data);

const refused = await client.GET("/v1/agents/{agent}", { params: { path: { agent: "agt_00000000000000000000000000" } } });
const error: components["schemas"]["Error"] | undefined = refused.error;

console.log(JSON.stringify({ keys, agent: agent.id, run: run.id, proposal: proposal?.id, envelope, bytes, documented, refused: { status: refused.response.status, code: error?.error.code } }));
`;

// A request the API refuses must not compile: POST /v1/runs needs a body, with an agent.
const wrong = `import createClient from "openapi-fetch";
import type { paths } from "./schema";

const client = createClient<paths>({ baseUrl: "http://localhost" });
await client.POST("/v1/runs", {});
await client.POST("/v1/runs", { body: { capabilities: "read" } });
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
let crm: ConnectedCrm;
let fileId: string;
const FILE_TEXT = "Adresse de livraison : 24 quai Saint-Antoine, Lyon.\n";

beforeAll(async () => {
  acme = await createTenant("pro");
  crm = await connectCrm(acme);
  await resetCrm();
  const uploaded = await upload(acme, "/v1/files", FILE_TEXT, "adresse.txt");
  if (uploaded.status !== 201) throw new Error(`upload: HTTP ${uploaded.status}`);
  fileId = uploaded.body.data.id as string;
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
  it("type-checks the README's quickstart calls under tsc --strict", () => {
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

  it("runs the quickstart against the server: agent, run, preview, tool call, file bytes, typed error", async () => {
    const name = `Client généré ${process.pid}`;
    const ran = node(["node_modules/tsx/dist/cli.mjs", path.join(dir, "journey.ts")], {
      BASE_URL: baseUrl,
      API_KEY: acme.key,
      AGENT_NAME: name,
      PREVIEW_TOOL: crm.key("preview_address_change"),
      COMMIT_TOOL: crm.key("commit_address_change"),
      FILE_ID: fileId,
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
    expect(outcome.bytes).toBe(FILE_TEXT);
    const db = await testDb();
    expect(await db.agent.findUnique({ where: { id: outcome.agent } })).toMatchObject({
      organizationId: acme.organizationId,
      name,
    });
    // The defaults the script left out were applied by the server.
    expect(await db.agent.findUnique({ where: { id: outcome.agent } })).toMatchObject({ active: true });
    expect(await db.run.findUnique({ where: { id: outcome.run } })).toMatchObject({
      organizationId: acme.organizationId,
      agentId: outcome.agent,
      capabilities: "read_write",
    });
    expect(await db.proposal.findFirst({ where: { id: outcome.proposal, runId: outcome.run } })).toMatchObject({
      status: "pending",
      tool: crm.key("commit_address_change"),
    });
    expect(await db.step.count({ where: { runId: outcome.run } })).toBe(2);
  });
});
