import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { endpoints } from "@/lib/openapi/endpoints";
import { connectCrm, createAgent, createRun } from "./dispatch-fixtures";
import { api, baseUrl, createTenant, testDb, type Caller, type Tenant } from "./helpers";

// A property test over every /v1 endpoint that takes a JSON body: random deep,
// wide and odd-Unicode JSON (and bodies nested far past the limit) must always
// get a typed answer, never a 5xx. Fixed seed and a bounded count: the same
// bodies on every run, so a failure is reproducible from its counterexample.

const SEED = 20_261_202;
const RUNS = 240;

let tenant: Tenant;
let owner: Caller;
const ids: Record<string, string> = {};

beforeAll(async () => {
  tenant = await createTenant("pro");
  owner = await tenant.as("owner");
  const crm = await connectCrm(tenant);
  const agent = await createAgent(tenant, { tools: [crm.key("get_customer")] });
  const { run } = await createRun(tenant, { agent: agent.id });
  // Real ids where the tenant has them, so the handlers get past their lookups.
  Object.assign(ids, {
    agent: agent.id,
    run: run.id,
    server: String(crm.serverId),
    tool: "get_customer",
    operation: "op_01jz0000000000000000000000",
    proposal: "prop_01jz000000000000000000000",
  });
});

const targets = endpoints.filter((e) => e.body && !e.multipart && ["POST", "PATCH", "PUT"].includes(e.method));

const oddStrings = [
  "x\ud800y",
  "\udc00",
  "\ud83d",
  "\u0000",
  "\u202eevil",
  "👩‍👩‍👧‍👦",
  "e\u0301\u0301\u0301",
  "\uffff\ufffe",
  "a".repeat(70_000),
  "<script>alert(1)</script>",
  "../../etc/passwd",
  "%ff%fe",
  "\\",
  '"',
  "mcp_1_get_customer",
  "calculate@1",
  "http://127.0.0.1:1/",
];
const scalar = fc.oneof(
  fc.constantFrom<unknown>(...oddStrings),
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom<unknown>(1e308, -0, 5e-324, 2 ** 53 + 1, true, false, null),
);
const key = fc.oneof(
  fc.constantFrom(
    "name",
    "url",
    "tool",
    "arguments",
    "expression",
    "scopes",
    "output_schema",
    "client_tools",
    "tools",
    "agent",
    "token",
    "auth",
    "capabilities",
    "files",
    "instructions",
    "reason",
    "rules",
    "__proto__",
    "constructor",
    "$ref",
    "type",
    "properties",
  ),
  fc.string({ maxLength: 8 }),
);
const { node } = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small" },
    scalar,
    fc.array(tie("node"), { maxLength: 6 }),
    fc.dictionary(key, tie("node"), { maxKeys: 8 }),
  ),
}));

/** A body as sent on the wire: random JSON, a known field holding random JSON, very deep nesting, or a very wide object. */
const body = fc.oneof(
  node.map((value) => JSON.stringify(value) ?? "null"),
  fc.tuple(key, node).map(([name, value]) => JSON.stringify({ [name]: value })),
  fc
    .tuple(fc.integer({ min: 30, max: 5_000 }), fc.constantFrom("[", '{"a":', '{"arguments":{"x":'))
    .map(([depth, open]) => {
      const close = open === "[" ? "]" : "}";
      const inner = open.startsWith('{"arguments"')
        ? `${"[".repeat(depth)}${"]".repeat(depth)}}}`
        : `${open.repeat(depth)}1${close.repeat(depth)}`;
      return open.startsWith('{"arguments"') ? `{"tool":"calculate","arguments":{"x":${inner}` : inner;
    }),
  fc
    .integer({ min: 500, max: 3_000 })
    .map((width) =>
      JSON.stringify(Object.fromEntries(Array.from({ length: width }, (_, i) => [`k${i}`, i % 2 ? "\ud800" : [i]]))),
    ),
);

function pathFor(template: string): string {
  return template.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(ids[name] ?? "x"));
}

describe("hostile JSON bodies on every /v1 POST, PATCH and PUT", () => {
  it("covers the endpoints it means to", () => {
    expect(targets.length).toBeGreaterThanOrEqual(12);
    expect(targets.map((e) => e.path)).toEqual(
      expect.arrayContaining(["/v1/agents", "/v1/runs/{run}/tool_calls", "/v1/mcp_servers/{server}", "/v1/api_keys"]),
    );
  });

  it(`never answers a 5xx (seed ${SEED}, ${RUNS} bodies)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...targets), body, async (endpoint, text) => {
        const as = endpoint.auth === "session" ? owner : { key: tenant.key };
        const response = await api(pathFor(endpoint.path), {
          method: endpoint.method,
          body: text,
          headers: { "content-type": "application/json" },
          as,
        });
        const summary = `${endpoint.method} ${endpoint.path} → ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`;
        expect(response.status, summary).toBeLessThan(500);
        expect(JSON.stringify(response.body), summary).not.toMatch(/call stack|RangeError|TypeError/);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  }, 300_000);
});

describe("bytes that are not UTF-8", () => {
  /** A JSON text whose `marker` string holds 0xC3 0x28: a lead byte followed by one that cannot continue it. */
  function withInvalidUtf8(value: Record<string, unknown>, marker: string): Uint8Array {
    const [head, tail] = JSON.stringify(value).split(marker);
    return Buffer.concat([Buffer.from(head), Buffer.from([0xc3, 0x28]), Buffer.from(tail)]);
  }

  it("refuses a /v1 body with 400 invalid_json, and stores nothing", async () => {
    const name = `utf8-${Date.now()}`;
    const response = await api("/v1/agents", {
      method: "POST",
      body: withInvalidUtf8({ name: `${name}MARK`, instructions: "x" }, "MARK") as BodyInit,
      headers: { "content-type": "application/json" },
      as: { key: tenant.key },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("invalid_json");
    const db = await testDb();
    const stored = await db.agent.findMany({
      where: { organizationId: tenant.organizationId, name: { startsWith: name } },
    });
    expect(stored).toHaveLength(0);
  });

  it("answers the MCP door with the JSON-RPC parse error -32700 and HTTP 400", async () => {
    const db = await testDb();
    const before = await db.run.count({ where: { agentId: ids.agent, source: "mcp" } });
    const response = await fetch(`${baseUrl}/mcp/agents/${ids.agent}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tenant.key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: withInvalidUtf8(
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "cMARK", version: "1" } },
        },
        "MARK",
      ) as BodyInit,
    });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.code).toBe(-32700);
    expect(body.error.data.code).toBe("invalid_json");
    expect(await db.run.count({ where: { agentId: ids.agent, source: "mcp" } })).toBe(before);
  });
});
