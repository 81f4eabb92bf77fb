import { randomBytes } from "node:crypto";
import { api, crmUrl, testDb, type Caller, type Tenant } from "./helpers";

// Arrangements of the runs and dispatcher suites, through the product's own
// API wherever it exists (agents, files, connectors), so the runs see exactly
// what a customer's setup produces.

export async function createAgent(tenant: Tenant, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const response = await api("/v1/agents", {
    json: { name: `Agent ${randomBytes(4).toString("hex")}`, ...body },
    as: { key: tenant.key },
  });
  if (response.status !== 201)
    throw new Error(`create agent: HTTP ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data;
}

export async function createRun(
  tenant: Tenant,
  body: Record<string, unknown>,
): Promise<{ run: Record<string, any>; warnings: any[] }> {
  const response = await api("/v1/runs", { json: body, as: { key: tenant.key } });
  if (response.status !== 201) throw new Error(`create run: HTTP ${response.status} ${JSON.stringify(response.body)}`);
  return { run: response.body.data, warnings: response.body.warnings };
}

/**
 * POST /v1/runs/{run}/tool_calls; the HTTP status must be 200 (the envelope carries the outcome).
 * As the tenant's key unless `as` names the run's opener (only the opener may drive a run).
 */
export async function callTool(
  tenant: Tenant,
  runId: string,
  tool: string,
  args: unknown = {},
  base?: string,
  as: Caller = { key: tenant.key },
): Promise<any> {
  const response = base
    ? await fetch(`${base}/v1/runs/${runId}/tool_calls`, {
        method: "POST",
        headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
        body: JSON.stringify({ tool, arguments: args }),
      }).then(async (r) => ({ status: r.status, body: await r.json() }))
    : await api(`/v1/runs/${runId}/tool_calls`, { json: { tool, arguments: args }, as });
  if (response.status !== 200) throw new Error(`tool call: HTTP ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

export async function upload(
  tenant: Tenant,
  route: string,
  content: string | Buffer,
  filename: string,
): Promise<Record<string, any>> {
  const form = new FormData();
  form.append(
    "file",
    new Blob([new Uint8Array(typeof content === "string" ? Buffer.from(content) : content)]),
    filename,
  );
  const response = await api(route, { body: form, as: { key: tenant.key } });
  if (response.status !== 201)
    throw new Error(`upload ${route}: HTTP ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data;
}

export interface ConnectedCrm {
  serverId: number;
  key: (tool: string) => string;
}

/** Connects CRM Acme as an administrator does: create, sync, then review every tool (writes_data as suggested). */
export async function connectCrm(tenant: Tenant, options: { url?: string; name?: string } = {}): Promise<ConnectedCrm> {
  const admin = await tenant.as("admin");
  const created = await api("/v1/mcp_servers", {
    json: {
      name: options.name ?? `CRM ${randomBytes(3).toString("hex")}`,
      url: options.url ?? crmUrl,
      auth: "none",
      active: true,
    },
    as: admin,
  });
  if (created.status !== 201) throw new Error(`create server: HTTP ${created.status} ${JSON.stringify(created.body)}`);
  const serverId = created.body.data.id as number;
  const synced = await api(`/v1/mcp_servers/${serverId}/sync`, { method: "POST", as: admin });
  if (synced.status !== 200) throw new Error(`sync: HTTP ${synced.status} ${JSON.stringify(synced.body)}`);
  await reviewAll(tenant, serverId);
  return { serverId, key: (tool) => `mcp_${serverId}_${tool}` };
}

/** Reviews every tool of the server that needs it, accepting the shown fingerprint. */
export async function reviewAll(tenant: Tenant, serverId: number): Promise<void> {
  const admin = await tenant.as("admin");
  const tools = await api(`/v1/mcp_servers/${serverId}/tools`, { as: admin });
  for (const tool of tools.body.data as {
    name: string;
    fingerprint: string;
    status: string;
    suggested_writes_data: boolean;
  }[]) {
    if (tool.status === "reviewed") continue;
    const reviewed = await api(`/v1/mcp_servers/${serverId}/tools/${tool.name}`, {
      method: "PATCH",
      json: { reviewed: true, fingerprint: tool.fingerprint, writes_data: tool.suggested_writes_data },
      as: admin,
    });
    if (reviewed.status !== 200)
      throw new Error(`review ${tool.name}: HTTP ${reviewed.status} ${JSON.stringify(reviewed.body)}`);
  }
}

export async function syncServer(tenant: Tenant, serverId: number): Promise<void> {
  const synced = await api(`/v1/mcp_servers/${serverId}/sync`, { method: "POST", as: await tenant.as("admin") });
  if (synced.status !== 200) throw new Error(`sync: HTTP ${synced.status} ${JSON.stringify(synced.body)}`);
}

/** The run's stored steps, oldest first, straight from the database. */
export async function storedSteps(runId: string) {
  const db = await testDb();
  return db.step.findMany({ where: { runId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
}

/** Gives the tenant Acme's demo data bases. */
export async function seedDataBases(tenant: Tenant): Promise<void> {
  await testDb();
  const { seedDemoDataBases } = await import("@/lib/data/seed");
  await seedDemoDataBases(tenant.organizationId);
}
