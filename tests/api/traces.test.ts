import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callTool,
  connectCrm,
  createAgent,
  createRun,
  reviewAll,
  syncServer,
  type ConnectedCrm,
} from "./dispatch-fixtures";
import { api, createTenant, crmFaults, testDb, type Tenant } from "./helpers";
import { approveOk } from "./proposals-helpers";

// Traces and replay: tracing is off unless an owner or admin turns it on; a
// traced run records its catalog and each call (redacted); replay checks the
// recorded calls of a tool against a contract version without executing
// anything, and the connectors' review shows the same check for a changed tool
// before anyone approves it. CRM Acme's get_customer changes at runtime:
// variant 2 adds an optional `include`, variant 3 makes it required and drops
// the value "orders_count" from its enum.

let acme: Tenant;
let other: Tenant;
let crm: ConnectedCrm;

const traceRows = async (runId: string) =>
  (await testDb()).traceEvent.findMany({ where: { runId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });

const replay = async (tenant: Tenant, key: string, body: unknown, role: "owner" | "admin" | "developer" = "admin") =>
  api(`/v1/contracts/${key}/replay`, { json: body, as: await tenant.as(role) });

beforeAll(async () => {
  acme = await createTenant();
  other = await createTenant();
  await crmFaults({ tool_schema_variant: 2 });
  crm = await connectCrm(acme);
});

afterAll(async () => crmFaults({ tool_schema_variant: 1 }));

describe("the trace setting", () => {
  it("is off by default, and a run of such an agent records nothing", async () => {
    const agent = await createAgent(acme, { tools: [crm.key("get_customer")] });
    expect(agent.trace).toBe("off");
    const { run } = await createRun(acme, { agent: agent.id });
    expect((await callTool(acme, run.id, crm.key("get_customer"), { customer_id: "C-1842" })).ok).toBe(true);
    expect(await traceRows(run.id)).toEqual([]);
    expect(await (await testDb()).step.count({ where: { runId: run.id } })).toBe(1);
  });

  it.each(["developer", "approver", "viewer"] as const)("may not be changed by a %s", async (role) => {
    const agent = await createAgent(acme);
    const response = await api(`/v1/agents/${agent.id}`, {
      method: "PATCH",
      json: { trace: "redacted" },
      as: await acme.as(role),
    });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe(role === "developer" ? "forbidden" : "insufficient_scope");
    expect((await (await testDb()).agent.findUniqueOrThrow({ where: { id: agent.id } })).trace).toBe("off");
  });

  it("may not be set with an API key, even one with agents:write", async () => {
    const response = await api("/v1/agents", {
      json: { name: "Traced by key", trace: "redacted" },
      as: { key: acme.key },
    });
    expect(response.status).toBe(403);
    expect(response.body.error).toMatchObject({ code: "forbidden" });
    expect(
      await (await testDb()).agent.count({ where: { organizationId: acme.organizationId, name: "Traced by key" } }),
    ).toBe(0);
  });

  it("refuses an unknown mode with invalid_parameter on trace", async () => {
    const agent = await createAgent(acme);
    const response = await api(`/v1/agents/${agent.id}`, {
      method: "PATCH",
      json: { trace: "full" },
      as: await acme.as("admin"),
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("invalid_parameter");
    expect(response.body.error.errors[0].field).toBe("trace");
  });

  it("is turned on and off by an owner or admin", async () => {
    const agent = await createAgent(acme);
    for (const [role, trace] of [
      ["owner", "redacted"],
      ["admin", "off"],
      ["admin", "redacted"],
    ] as const) {
      const response = await api(`/v1/agents/${agent.id}`, {
        method: "PATCH",
        json: { trace },
        as: await acme.as(role),
      });
      expect(response.status).toBe(200);
      expect(response.body.data.trace).toBe(trace);
    }
    expect((await api(`/v1/agents/${agent.id}`, { as: { key: acme.key } })).body.data.trace).toBe("redacted");
  });
});

describe("a traced run and replay", () => {
  let runId: string;

  beforeAll(async () => {
    const created = await api("/v1/agents", {
      json: { name: "Traced agent", tools: [crm.key("get_customer")], trace: "redacted" },
      as: await acme.as("admin"),
    });
    expect(created.status).toBe(201);
    runId = (await createRun(acme, { agent: created.body.data.id })).run.id;
    const key = crm.key("get_customer");
    expect((await callTool(acme, runId, key, { customer_id: "C-1842" })).ok).toBe(true);
    expect((await callTool(acme, runId, key, { customer_id: "C-2001" })).ok).toBe(true);
    expect((await callTool(acme, runId, key, { customer_id: "C-1842", include: ["orders_count"] })).ok).toBe(true);
    // Refused by validation when made: recorded, never replayed.
    expect((await callTool(acme, runId, key, { customer_id: 1842 })).error.code).toBe("INVALID_ARGUMENTS");
  });

  it("records the catalog and each call with its validation decision, the result redacted", async () => {
    const rows = await traceRows(runId);
    expect(rows.map((r) => [r.kind, r.valid])).toEqual([
      ["catalog", null],
      ["call", true],
      ["call", true],
      ["call", true],
      ["call", false],
    ]);
    expect((rows[0].payload as { tools: unknown[] }).tools).toContainEqual({
      key: crm.key("get_customer"),
      version: 1,
    });
    expect(rows[1].payload).toMatchObject({
      tool: `${crm.key("get_customer")}@1`,
      arguments: { customer_id: "C-1842" },
      validation: { ok: true },
      outcome: { ok: true },
      result: { customer_id: "C-1842", email: "xxxxxxx.xxxxxx@xxxxxxx.xxx" },
      result_redactions: [{ pointer: "/email", kind: "email" }],
    });
    expect(rows[4].payload).toMatchObject({
      validation: { ok: false, code: "INVALID_ARGUMENTS", field: "/customer_id" },
      result: null,
    });
    expect(JSON.stringify(rows)).not.toContain("camille.martin@example.com");
  });

  it("finds every recorded call still valid against the version they were made with", async () => {
    const response = await replay(acme, crm.key("get_customer"), { version: 1 });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      tool: crm.key("get_customer"),
      version: 1,
      checked: 3,
      still_valid: 3,
      refused: 0,
      now_refused: [],
      effects_checked: 3,
      effects_changed: [],
    });
  });

  it("shows in the review, before approval, that the changed tool would refuse all 3 recorded calls", async () => {
    await crmFaults({ tool_schema_variant: 3 });
    await syncServer(acme, crm.serverId);
    const tools = await api(`/v1/mcp_servers/${crm.serverId}/tools`, { as: await acme.as("admin") });
    const changed = tools.body.data.find((t: { name: string }) => t.name === "get_customer");
    expect(changed.status).toBe("needs_review");
    expect(changed.replay).toMatchObject({ version: null, checked: 3, still_valid: 0, refused: 3 });
    expect(changed.replay.now_refused.map((r: { field: string }) => r.field)).toEqual([
      "/include",
      "/include",
      "/include/0",
    ]);
    // Unchanged tools carry no replay.
    expect(tools.body.data.find((t: { name: string }) => t.name === "list_orders").replay).toBeNull();
    // Nothing was published or executed by looking.
    expect(await (await testDb()).toolContract.count({ where: { key: crm.key("get_customer") } })).toBe(1);
  });

  it("reports the new version's refusals: a field became required, an enum lost a value", async () => {
    await reviewAll(acme, crm.serverId);
    // The reviewed version is published when first asked for.
    const published = await api(`/v1/tools/${crm.key("get_customer")}/contract`, { as: { key: acme.key } });
    expect(published.body.data.version).toBe(2);
    const response = await replay(acme, crm.key("get_customer"), { version: 2 });
    expect(response.status).toBe(200);
    const report = response.body.data;
    expect(report).toMatchObject({ version: 2, checked: 3, still_valid: 0, refused: 3 });
    const rows = await traceRows(runId);
    expect(report.now_refused).toEqual([
      expect.objectContaining({
        trace: rows[1].id,
        run: runId,
        code: "INVALID_ARGUMENTS",
        field: "/include",
        redacted: false,
      }),
      expect.objectContaining({ trace: rows[2].id, code: "INVALID_ARGUMENTS", field: "/include" }),
      expect.objectContaining({ trace: rows[3].id, code: "INVALID_ARGUMENTS", field: "/include/0" }),
    ]);
    // The same from the command line, exiting 1 because a recorded call would be refused.
    // Asynchronously: a blocked event loop would miss the server closing idle keep-alive sockets.
    const cli = await new Promise<{ status: number | null; stdout: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          "node_modules/tsx/dist/cli.mjs",
          "--conditions=react-server",
          "scripts/replay.ts",
          `${crm.key("get_customer")}@2`,
          "--org",
          acme.slug,
        ],
        { env: process.env, stdio: ["ignore", "pipe", "inherit"] },
      );
      let stdout = "";
      child.stdout.on("data", (chunk) => (stdout += chunk));
      child.on("close", (status) => resolve({ status, stdout }));
    });
    expect(cli.status).toBe(1);
    expect(JSON.parse(cli.stdout)).toMatchObject({ organization: acme.slug, checked: 3, still_valid: 0, refused: 3 });
    // Replay wrote nothing: the same rows, and no new step.
    expect((await traceRows(runId)).length).toBe(rows.length);
    expect(await (await testDb()).step.count({ where: { runId } })).toBe(4);
  });

  it("answers 404 for a version or a key the organization does not have", async () => {
    const missing = await replay(acme, crm.key("get_customer"), { version: 99 });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
    const elsewhere = await replay(other, crm.key("get_customer"), { version: 1 });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.code).toBe("not_found");
  });

  it("is for owners and admins signed in: 403 for other roles and API keys", async () => {
    expect((await replay(acme, crm.key("get_customer"), { version: 1 }, "owner")).status).toBe(200);
    const developer = await replay(acme, crm.key("get_customer"), { version: 1 }, "developer");
    expect(developer.status).toBe(403);
    expect(developer.body.error.code).toBe("forbidden");
    const byKey = await api(`/v1/contracts/${crm.key("get_customer")}/replay`, {
      json: { version: 1 },
      as: { key: acme.key },
    });
    expect(byKey.status).toBe(403);
  });

  it("refuses a bad body with a typed 400", async () => {
    for (const body of [{}, { version: 0 }, { version: "1" }, { version: 1, extra: true }]) {
      const response = await replay(acme, crm.key("get_customer"), body);
      expect(response.status).toBe(400);
      expect(["invalid_parameter", "unknown_parameter"]).toContain(response.body.error.code);
    }
  });

  it("goes with its run", async () => {
    const db = await testDb();
    expect(await db.traceEvent.count({ where: { runId } })).toBe(5);
    await db.run.delete({ where: { id: runId } });
    expect(await db.traceEvent.count({ where: { runId } })).toBe(0);
  });
});

describe("replay of effects after a policy change", () => {
  it("records each call's effect and policy, and names the calls whose approval need a new policy moves", async () => {
    const email = crm.key("send_email");
    const created = await api("/v1/agents", {
      json: { name: "Traced mailer", tools: [email], trace: "redacted" },
      as: await acme.as("admin"),
    });
    expect(created.status).toBe(201);
    const runId = (await createRun(acme, { agent: created.body.data.id, capabilities: "read_write" })).run.id;
    const proposed = await callTool(acme, runId, email, {
      to: ["camille.martin@example.com"],
      subject: "Votre commande",
      body: "Bonjour, votre commande est partie.",
    });
    expect(proposed.error.code).toBe("APPROVAL_REQUIRED");
    const proposal = proposed.error.proposal_id as string;
    await approveOk(acme, proposal, "approver");
    expect((await callTool(acme, runId, email, { proposal_id: proposal })).ok).toBe(true);
    const calls = (await traceRows(runId)).filter((row) => row.kind === "call");
    const recordedPolicy = {
      tool: email,
      rule: "external-messages",
      decision: "require_approval",
      approvals_required: 1,
    };
    for (const call of calls) expect(call.payload).toMatchObject({ effect: "write", policy: recordedPolicy });
    expect((await traceRows(runId)).map((row) => row.kind)).toEqual(["catalog", "call", "approval", "call"]);

    const unchanged = await replay(acme, email, { version: 1 });
    expect(unchanged.body.data).toMatchObject({ checked: 2, refused: 0, effects_checked: 2, effects_changed: [] });

    // A stricter policy: e-mails now need two people. Nothing about the inputs changed, and replay says what did.
    const current = (await api("/v1/policies", { as: { key: acme.key } })).body.data;
    const rule = {
      id: "mails-two-people",
      match: { tools: [email] },
      decision: "require_approval",
      approvals_required: 2,
      approver_roles: ["owner", "admin", "approver"],
      ttl_seconds: 3600,
    };
    const put = await api("/v1/policies", {
      method: "PUT",
      json: { rules: [rule, ...current.rules], base_version: current.version },
      as: await acme.as("admin"),
    });
    expect(put.status).toBe(200);
    const moved = await replay(acme, email, { version: 1 });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ checked: 2, still_valid: 2, refused: 0, effects_checked: 2 });
    expect(moved.body.data.effects_changed).toEqual(
      calls.map((call) => ({
        trace: call.id,
        run: runId,
        changed: ["approval"],
        recorded: { effect: "write", approval: { decision: "require_approval", approvals_required: 1 } },
        now: { effect: "write", approval: { decision: "require_approval", approvals_required: 2 } },
      })),
    );
    const restored = await api("/v1/policies", {
      method: "PUT",
      json: { rules: current.rules, base_version: put.body.data.version },
      as: await acme.as("admin"),
    });
    expect(restored.status).toBe(200);
  });
});
