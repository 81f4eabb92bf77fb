import { beforeAll, describe, expect, it } from "vitest";
import { callTool, connectCrm, createAgent, createRun, upload, type ConnectedCrm } from "./dispatch-fixtures";
import { api, createTenant, testDb, type Tenant } from "./helpers";

// Runs: creation with a frozen capability set, reads, steps, cancellation,
// scopes and tenancy.

let acme: Tenant;
let free: Tenant;
let crm: ConnectedCrm;

beforeAll(async () => {
  acme = await createTenant("pro");
  free = await createTenant("free");
  crm = await connectCrm(acme);
});

const keysOf = (run: Record<string, any>): string[] => run.capability_set.map((c: { tool: string }) => c.tool);

describe("POST /v1/runs", () => {
  it("freezes the agent's tools, the forced tools and their versions, with the agent's instructions first", async () => {
    const agent = await createAgent(acme, {
      instructions: "Tu réponds en français.",
      tools: ["create_chart", "query_table", crm.key("get_customer")],
    });
    const response = await api("/v1/runs", {
      json: { agent: agent.id, instructions: "Sois bref." },
      as: { key: acme.key },
    });
    expect(response.status).toBe(201);
    const run = response.body.data;
    expect(run).toMatchObject({
      agent: agent.id,
      status: "active",
      capabilities: "read",
      instructions: "Tu réponds en français.\n\nSois bref.",
      files: [],
      debug: false,
    });
    expect(run.id).toMatch(/^run_[0-9a-z]{26}$/);
    expect(keysOf(run).sort()).toEqual(
      ["calculate", "create_chart", crm.key("get_customer"), "query_table", "web_fetch", "web_search"].sort(),
    );
    expect(run.capability_set.find((c: { tool: string }) => c.tool === "calculate")).toEqual({
      tool: "calculate",
      version: 1,
      effect: "read",
    });
    expect(response.body.warnings).toEqual([]);
    expect(Date.parse(run.expires_at) - Date.parse(run.created_at)).toBe(3_600_000);
    const stored = await (await testDb()).run.findUniqueOrThrow({ where: { id: run.id } });
    expect(stored.capabilitySet).toEqual(
      run.capability_set.map((c: { tool: string; version: number; effect: string }) => ({
        key: c.tool,
        version: c.version,
        effect: c.effect,
      })),
    );
  });

  it("defaults to read: a write tool the agent lists is left out with a warning; read_write keeps it", async () => {
    const agent = await createAgent(acme, { tools: [crm.key("commit_address_change"), crm.key("get_customer")] });
    const read = await createRun(acme, { agent: agent.id });
    expect(keysOf(read.run)).not.toContain(crm.key("commit_address_change"));
    expect(read.warnings).toEqual([
      {
        code: "write_tool_excluded",
        tool: crm.key("commit_address_change"),
        reason: { code: "read_run", message: expect.any(String) },
      },
    ]);
    const write = await createRun(acme, { agent: agent.id, capabilities: "read_write" });
    expect(write.run.capability_set).toContainEqual({
      tool: crm.key("commit_address_change"),
      version: 1,
      effect: "write",
    });
    expect(write.warnings).toEqual([]);
  });

  it("leaves out a tool that became unavailable since, with the catalog's reason", async () => {
    const agent = await createAgent(acme, { tools: ["list_data_bases", crm.key("list_orders")] });
    const db = await testDb();
    await db.mcpTool.updateMany({ where: { serverId: crm.serverId, name: "list_orders" }, data: { enabled: false } });
    try {
      const { run, warnings } = await createRun(acme, { agent: agent.id });
      expect(keysOf(run)).toContain("list_data_bases");
      expect(keysOf(run)).not.toContain(crm.key("list_orders"));
      expect(warnings).toEqual([
        {
          code: "tool_unavailable",
          tool: crm.key("list_orders"),
          reason: { code: "mcp_tool_disabled", message: expect.any(String) },
        },
      ]);
    } finally {
      await db.mcpTool.updateMany({ where: { serverId: crm.serverId, name: "list_orders" }, data: { enabled: true } });
    }
  });

  it("on a plan without structured data, drops the data tools with plan_feature_missing", async () => {
    const agent = await createAgent(acme, { tools: ["query_table"] });
    const db = await testDb();
    await db.organization.update({ where: { id: acme.organizationId }, data: { planId: "free" } });
    try {
      const { run, warnings } = await createRun(acme, { agent: agent.id });
      expect(keysOf(run)).not.toContain("query_table");
      expect(warnings).toEqual([
        {
          code: "tool_unavailable",
          tool: "query_table",
          reason: { code: "plan_feature_missing", message: "Your plan does not include structured data." },
        },
      ]);
    } finally {
      await db.organization.update({ where: { id: acme.organizationId }, data: { planId: "pro" } });
    }
  });

  it("adds the file tools when the run has files or the agent has documents", async () => {
    const plain = await createAgent(acme);
    expect(keysOf((await createRun(acme, { agent: plain.id })).run)).not.toContain("read_uploaded_file");
    const file = await upload(acme, "/v1/files", "bonjour\n", "note.txt");
    const withFile = await createRun(acme, { agent: plain.id, files: [file.id] });
    expect(keysOf(withFile.run)).toEqual(
      expect.arrayContaining(["inspect_file", "read_uploaded_file", "search_text", "list_uploaded_files"]),
    );
    expect(withFile.run.files).toEqual([file.id]);
    const documented = await createAgent(acme);
    await upload(acme, `/v1/agents/${documented.id}/documents`, "FAQ\n", "faq.md");
    expect(keysOf((await createRun(acme, { agent: documented.id })).run)).toContain("search_text");
  });

  it("refuses an inactive agent with 400 agent_inactive and creates nothing", async () => {
    const agent = await createAgent(acme, { active: false });
    const response = await api("/v1/runs", { json: { agent: agent.id }, as: { key: acme.key } });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("agent_inactive");
    expect(await (await testDb()).run.count({ where: { agentId: agent.id } })).toBe(0);
  });

  it("answers 404 for an unknown agent or another organization's agent", async () => {
    const theirs = await createAgent(free);
    for (const agent of ["agt_01jz8nothing00000000000000", theirs.id]) {
      const response = await api("/v1/runs", { json: { agent }, as: { key: acme.key } });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe("not_found");
    }
  });

  it("refuses unknown files, another organization's files and strict-body violations", async () => {
    const agent = await createAgent(acme);
    const theirs = await upload(free, "/v1/files", "x\n", "x.txt");
    const response = await api("/v1/runs", {
      json: { agent: agent.id, files: ["file_01jz8nothing000000000000000", theirs.id] },
      as: { key: acme.key },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("invalid_parameter");
    expect(response.body.error.errors.map((e: { field: string }) => e.field)).toEqual(["files[0]", "files[1]"]);
    const unknown = await api("/v1/runs", { json: { agent: agent.id, tools: ["send_email"] }, as: { key: acme.key } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe("unknown_parameter");
    const bad = await api("/v1/runs", { json: { agent: agent.id, capabilities: "admin" }, as: { key: acme.key } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.errors[0].field).toBe("capabilities");
  });

  it("needs runs:write; a viewer session and a runs:read key are refused", async () => {
    const agent = await createAgent(acme);
    const readKey = await api("/v1/runs", {
      json: { agent: agent.id },
      as: { key: await acme.keyWith(["runs:read"]) },
    });
    expect(readKey.status).toBe(403);
    expect(readKey.body.error.code).toBe("insufficient_scope");
    const viewer = await api("/v1/runs", { json: { agent: agent.id }, as: await acme.as("viewer") });
    expect(viewer.status).toBe(403);
    const developer = await api("/v1/runs", { json: { agent: agent.id }, as: await acme.as("developer") });
    expect(developer.status).toBe(201);
    expect(
      (await (await testDb()).run.findUniqueOrThrow({ where: { id: developer.body.data.id } })).memberId,
    ).toBeTruthy();
  });
});

describe("reading runs and steps", () => {
  it("lists runs newest first with a cursor, filters by agent, and hides other organizations' runs", async () => {
    const agent = await createAgent(acme);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createRun(acme, { agent: agent.id })).run.id);
    const first = await api(`/v1/runs?agent=${agent.id}&limit=2`, { as: { key: await acme.keyWith(["runs:read"]) } });
    expect(first.status).toBe(200);
    expect(first.body.data.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1]]);
    const second = await api(`/v1/runs?agent=${agent.id}&limit=2&cursor=${first.body.next_cursor}`, {
      as: { key: acme.key },
    });
    expect(second.body.data.map((r: { id: string }) => r.id)).toEqual([ids[0]]);
    expect(second.body.next_cursor).toBeNull();
    const theirs = await api(`/v1/runs?agent=${agent.id}`, { as: { key: free.key } });
    expect(theirs.body.data).toEqual([]);
    for (const path of [`/v1/runs/${ids[0]}`, `/v1/runs/${ids[0]}/steps`]) {
      const response = await api(path, { as: { key: free.key } });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe("not_found");
    }
  });

  it("records each call as a step without its arguments, readable with runs:read", async () => {
    const agent = await createAgent(acme);
    const { run } = await createRun(acme, { agent: agent.id });
    expect((await callTool(acme, run.id, "calculate", { expression: "6 * 7" })).ok).toBe(true);
    expect((await callTool(acme, run.id, "calculate", { expression: "6 *" })).error.code).toBe("INVALID_ARGUMENTS");
    const steps = await api(`/v1/runs/${run.id}/steps`, { as: { key: await acme.keyWith(["runs:read"]) } });
    expect(steps.status).toBe(200);
    expect(steps.body.data).toHaveLength(2);
    const [failed, ok] = steps.body.data;
    expect(ok).toMatchObject({
      run: run.id,
      tool: "calculate",
      version: 1,
      status: "ok",
      error_code: null,
      retries: 0,
      debug: null,
    });
    expect(failed).toMatchObject({
      tool: "calculate",
      status: "error",
      error_code: "INVALID_ARGUMENTS",
      error_field: "/expression",
    });
    expect(ok.arguments_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(steps.body)).not.toContain("6 * 7");
  });

  it("with the debug flag, keeps redacted arguments and the viewed result on the step", async () => {
    const agent = await createAgent(acme);
    const { run } = await createRun(acme, { agent: agent.id, debug: true });
    await callTool(acme, run.id, "calculate", { expression: "2 + 2" });
    const steps = await api(`/v1/runs/${run.id}/steps`, { as: { key: acme.key } });
    expect(steps.body.data[0].debug).toEqual({
      arguments: { expression: "2 + 2" },
      result: { expression: "2 + 2", result: 4 },
    });
  });
});

describe("POST /v1/runs/{run}/cancel", () => {
  it("cancels: the run refuses every later call with CANCELLED; cancelling again is a no-op", async () => {
    const agent = await createAgent(acme);
    const { run } = await createRun(acme, { agent: agent.id });
    const cancelled = await api(`/v1/runs/${run.id}/cancel`, { method: "POST", as: { key: acme.key } });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data.status).toBe("cancelled");
    expect(cancelled.body.cancellation.stopped_calls).toBe(0);
    const call = await callTool(acme, run.id, "calculate", { expression: "1 + 1" });
    expect(call).toEqual({
      ok: false,
      error: { code: "CANCELLED", message: expect.stringContaining("cancelled"), retryable: false, field: null },
    });
    expect((await api(`/v1/runs/${run.id}/cancel`, { method: "POST", as: { key: acme.key } })).status).toBe(200);
    expect((await api(`/v1/runs/${run.id}`, { as: { key: acme.key } })).body.data.status).toBe("cancelled");
  });

  it("reports an expired run as expired and refuses to cancel it", async () => {
    const agent = await createAgent(acme);
    const { run } = await createRun(acme, { agent: agent.id });
    await (await testDb()).run.update({ where: { id: run.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await api(`/v1/runs/${run.id}`, { as: { key: acme.key } })).body.data.status).toBe("expired");
    const response = await api(`/v1/runs/${run.id}/cancel`, { method: "POST", as: { key: acme.key } });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe("conflict");
    expect((await callTool(acme, run.id, "calculate", { expression: "1" })).error.code).toBe("CANCELLED");
  });

  it("answers 404 for another organization's run", async () => {
    const agent = await createAgent(acme);
    const { run } = await createRun(acme, { agent: agent.id });
    const response = await api(`/v1/runs/${run.id}/cancel`, { method: "POST", as: { key: free.key } });
    expect(response.status).toBe(404);
    expect((await api(`/v1/runs/${run.id}`, { as: { key: acme.key } })).body.data.status).toBe("active");
  });
});
