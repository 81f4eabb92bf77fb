import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { api, dataDir, testDb, type Tenant } from "./helpers";

// Arrangements shared by the agents and files suites. MCP rows are written
// directly (the connector API has its own suites): what matters here is the
// state the catalog reads — server active and auth, tool enabled, fingerprint
// against reviewed fingerprint.

export const models = {
  large: "mdl_01jz8mistrallarge000000000", // plan default, structured output
  small: "mdl_01jz8mistralsmall000000000", // no structured output
  sonnet: "mdl_01jz8claudesonnet000000000", // pro only
};

export interface ArrangedTool {
  name: string;
  enabled?: boolean;
  reviewed?: boolean;
  writesData?: boolean;
}

/** An MCP server of the organization with tools in the given states; returns its id. */
export async function arrangeMcpServer(
  tenant: Tenant,
  options: { name?: string; auth?: string; active?: boolean; tools: ArrangedTool[] },
): Promise<number> {
  const db = await testDb();
  const server = await db.mcpServer.create({
    data: {
      organizationId: tenant.organizationId,
      name: options.name ?? "Arranged",
      url: "http://127.0.0.1:9/mcp",
      auth: options.auth ?? "none",
      active: options.active ?? true,
      tools: {
        create: options.tools.map((tool) => ({
          organizationId: tenant.organizationId,
          name: tool.name,
          description: `${tool.name} tool`,
          inputSchema: { type: "object" },
          fingerprint: "fp-1",
          reviewedFingerprint: tool.reviewed === false ? null : "fp-1",
          enabled: tool.enabled ?? true,
          writesData: tool.writesData ?? false,
        })),
      },
    },
  });
  return server.id;
}

/** Moves the tenant to a plan of its own with the given limits (and only Mistral Small unless told). */
export async function arrangePlan(
  tenant: Tenant,
  limits: Partial<{
    storageBytes: number;
    maxFiles: number;
    maxAgents: number;
    maxFileBytes: number;
    fileTtlDays: number;
    features: string[];
  }>,
  planModels: { modelId: string; isDefault: boolean }[] = [{ modelId: models.small, isDefault: true }],
): Promise<string> {
  const db = await testDb();
  const id = `test-${randomBytes(4).toString("hex")}`;
  await db.plan.create({
    data: {
      id,
      name: id,
      features: limits.features ?? [],
      storageBytes: limits.storageBytes ?? 10_000_000,
      maxFiles: limits.maxFiles ?? 100,
      maxAgents: limits.maxAgents ?? 100,
      maxFileBytes: limits.maxFileBytes ?? 1_000_000,
      fileTtlDays: limits.fileTtlDays ?? 30,
      models: { create: planModels },
    },
  });
  await db.organization.update({ where: { id: tenant.organizationId }, data: { planId: id } });
  return id;
}

export async function setPlan(tenant: Tenant, planId: string): Promise<void> {
  const db = await testDb();
  await db.organization.update({ where: { id: tenant.organizationId }, data: { planId } });
}

export async function createAgent(tenant: Tenant, body: Record<string, unknown> = {}) {
  const response = await api("/v1/agents", {
    json: { name: `Agent ${randomBytes(4).toString("hex")}`, ...body },
    as: { key: tenant.key },
  });
  if (response.status !== 201)
    throw new Error(`create agent: HTTP ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data as Record<string, any>;
}

export function uploadForm(content: Buffer | string, filename: string, field = "file"): FormData {
  const body = new FormData();
  body.append(
    field,
    new Blob([new Uint8Array(typeof content === "string" ? Buffer.from(content) : content)]),
    filename,
  );
  return body;
}

export async function upload(tenant: Tenant, route: string, content: Buffer | string, filename: string) {
  return api(route, { body: uploadForm(content, filename), as: { key: tenant.key } });
}

/** Where the server keeps a stored file, from its row. */
export async function storedPath(fileId: string): Promise<string> {
  const db = await testDb();
  const row = await db.file.findUniqueOrThrow({ where: { id: fileId } });
  return path.join(dataDir, row.storageKey);
}

/** Uploads in progress (temp files) on the server's disk. */
export function tempFiles(): string[] {
  const dir = path.join(dataDir, "files", "tmp");
  return existsSync(dir) ? readdirSync(dir) : [];
}

export const agentKeys = [
  "active",
  "client_tools",
  "created_at",
  "id",
  "instructions",
  "model",
  "name",
  "output_schema",
  "temperature",
  "tools",
  "trace",
  "unavailable_tools",
  "updated_at",
];
export const isoWithOffset = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;
