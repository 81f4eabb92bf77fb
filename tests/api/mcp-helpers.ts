import http from "node:http";
import type { AddressInfo } from "node:net";
import { api, crmUrl, type Tenant } from "./helpers";

// Steps shared by the catalog and connector suites, all through the real API as
// an organization admin would take them in the console.

export async function connectServer(tenant: Tenant, body: Record<string, unknown> = {}): Promise<number> {
  const response = await api("/v1/mcp_servers", {
    json: { name: "CRM Acme", url: crmUrl, ...body },
    as: await tenant.as("admin"),
  });
  if (response.status !== 201) throw new Error(`connect: HTTP ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data.id;
}

export async function syncServer(tenant: Tenant, id: number) {
  return api(`/v1/mcp_servers/${id}/sync`, { method: "POST", as: await tenant.as("admin") });
}

export async function serverTools(tenant: Tenant, id: number) {
  const response = await api(`/v1/mcp_servers/${id}/tools`, { as: await tenant.as("admin") });
  if (response.status !== 200) throw new Error(`tools: HTTP ${response.status}`);
  return response.body.data as Array<Record<string, any>>;
}

export async function patchTool(tenant: Tenant, id: number, name: string, body: Record<string, unknown>) {
  return api(`/v1/mcp_servers/${id}/tools/${name}`, { method: "PATCH", json: body, as: await tenant.as("admin") });
}

/** Reviews a tool as shown now (its current fingerprint). */
export async function reviewTool(
  tenant: Tenant,
  id: number,
  name: string,
  settings: { writes_data?: boolean; enabled?: boolean } = {},
) {
  const tool = (await serverTools(tenant, id)).find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const response = await patchTool(tenant, id, name, { reviewed: true, fingerprint: tool.fingerprint, ...settings });
  if (response.status !== 200) throw new Error(`review: HTTP ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data;
}

export async function patchServer(tenant: Tenant, id: number, body: Record<string, unknown>) {
  return api(`/v1/mcp_servers/${id}`, { method: "PATCH", json: body, as: await tenant.as("admin") });
}

export async function catalog(tenant: Tenant): Promise<Array<Record<string, any>>> {
  const response = await api("/v1/tools", { as: { key: tenant.key } });
  if (response.status !== 200) throw new Error(`catalog: HTTP ${response.status}`);
  return response.body.data;
}

export async function catalogEntry(tenant: Tenant, key: string) {
  return (await catalog(tenant)).find((entry) => entry.key === key);
}

/** A local HTTP peer that is not an MCP server: answers every request with `body`, or never answers (null). */
export async function garbageServer(
  body: string | null,
  type = "application/json",
): Promise<{ url: string; close(): void }> {
  const server = http.createServer((_req, res) => {
    if (body === null) return;
    res.writeHead(200, { "content-type": type });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://peer.test:${(server.address() as AddressInfo).port}/mcp`, // a public-looking name for 127.0.0.1 (test hosts)
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
