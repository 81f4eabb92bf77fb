import "server-only";
import { db, type DbOrTx, type Prisma } from "@/lib/db";
import { WatchedCache } from "@/lib/db/changes";
import { env } from "@/lib/env";
import { builtinTools, STRUCTURED_DATA_FEATURE, type BuiltinTool } from "./builtin";
import { reason, type UnavailabilityCode } from "./reasons";

export interface CatalogEntry {
  key: string;
  label: string;
  description: string;
  kind: "native" | "data" | "mcp";
  forced: boolean;
  available: boolean;
  reason: { code: UnavailabilityCode; message: string } | null;
  server: { id: number; name: string } | null;
  writes_data: boolean;
}

export function mcpToolKey(serverId: number, toolName: string): string {
  return `mcp_${serverId}_${toolName}`;
}

interface McpToolState {
  name: string;
  description: string;
  enabled: boolean;
  writesData: boolean;
  fingerprint: string;
  reviewedFingerprint: string | null;
}

interface McpServerState {
  id: number;
  name: string;
  auth: string;
  active: boolean;
}

/** What mcpUnavailability reads of a server and of its tool: the catalog and the dispatcher select these. */
export const mcpServerStateSelect = {
  id: true,
  name: true,
  auth: true,
  active: true,
} as const satisfies Prisma.McpServerSelect;
export const mcpToolStateSelect = {
  name: true,
  description: true,
  enabled: true,
  writesData: true,
  fingerprint: true,
  reviewedFingerprint: true,
} as const satisfies Prisma.McpToolSelect;

/** Whether a connector acts as each member (their own token, or their own OAuth sign-in). */
export function actsAsMember(server: Pick<McpServerState, "auth">): boolean {
  return server.auth === "per_user_token" || server.auth === "oauth";
}

/**
 * Who a tool would be used for: nobody (an API key, a widget: `null`), or a member
 * and whether they connected the tool's server (only asked of per-member connectors).
 */
export type MemberAccess = { connected: boolean } | null;

/**
 * The one place that decides whether an MCP tool is usable, and why not. Without a
 * member, a per-member connector's tools answer seed 002's codes; for a member, what
 * the organization decided comes first (disabled, to review), then their connection.
 */
export function mcpUnavailability(
  server: McpServerState,
  tool: McpToolState,
  member: MemberAccess = null,
): UnavailabilityCode | null {
  if (!server.active) return "mcp_server_inactive";
  if (member === null && server.auth === "per_user_token") return "mcp_per_user_credentials";
  if (member === null && server.auth === "oauth") return "mcp_oauth_credentials";
  if (!tool.enabled) return "mcp_tool_disabled";
  if (tool.reviewedFingerprint !== tool.fingerprint) return "mcp_tool_needs_review";
  if (actsAsMember(server) && member && !member.connected) return "mcp_member_not_connected";
  return null;
}

// A per-member tool's catalog entry says what a run with no member gets; what a
// connected member would get is kept beside it, out of the served object.
const forConnectedMember = new WeakMap<CatalogEntry, UnavailabilityCode | null>();

/**
 * For an entry unavailable only for want of a member (seed 002's codes): why it would
 * still be unavailable to a connected member (disabled, to review), or null when a
 * connected member may use it. Undefined for every other entry.
 */
export function unavailabilityForConnectedMember(entry: CatalogEntry): UnavailabilityCode | null | undefined {
  return forConnectedMember.get(entry);
}

/**
 * The first server setting a built-in requires and this instance lacks, or null.
 * Such a tool could only fail, so it is offered to no one (see builtinTools' `requires`).
 */
export function missingSetting(tool: Pick<BuiltinTool, "requires">): string | null {
  return tool.requires?.find((setting) => !env[setting]) ?? null;
}

/** Why a built-in is unavailable to an organization (its plan, this instance's settings), or null. */
export function builtinUnavailability(
  tool: Pick<BuiltinTool, "kind" | "requires">,
  hasStructuredData: boolean,
): { code: UnavailabilityCode; message: string } | null {
  if (tool.kind === "data" && !hasStructuredData) return reason("plan_feature_missing");
  const setting = missingSetting(tool);
  return setting ? reason("not_configured", setting) : null;
}

/**
 * The organization's catalog: everything it could put on an agent, and why the
 * rest is refused. Agent validation, runs and the console all ask this.
 */
export async function listCatalog(organizationId: string, tx: DbOrTx = db): Promise<CatalogEntry[]> {
  // A copy: callers may sort or filter what they get without touching what is kept.
  return tx === db
    ? [...(await catalogs.get(organizationId, () => buildCatalog(organizationId, db)))]
    : buildCatalog(organizationId, tx);
}

// Each instance keeps an organization's catalog while no organization, plan,
// model, MCP server or MCP tool changes anywhere (lib/db/changes.ts): it is a
// function of those rows and of the instance's settings (fixed while it runs) alone. What a transaction read is never kept (it may
// see its own uncommitted writes). Entries are shared: read them, never edit.
const catalogs = new WatchedCache<string, CatalogEntry[]>(["tenancy", "catalog"], 1_000);

async function buildCatalog(organizationId: string, tx: DbOrTx): Promise<CatalogEntry[]> {
  const organization = await tx.organization.findUniqueOrThrow({
    where: { id: organizationId },
    select: {
      plan: { select: { features: true } },
      mcpServers: {
        orderBy: { id: "asc" },
        select: {
          ...mcpServerStateSelect,
          tools: { where: { removedAt: null }, orderBy: { name: "asc" }, select: mcpToolStateSelect },
        },
      },
    },
  });
  const features = Array.isArray(organization.plan.features) ? (organization.plan.features as string[]) : [];
  const hasStructuredData = features.includes(STRUCTURED_DATA_FEATURE);

  const builtin: CatalogEntry[] = builtinTools.map((tool) => {
    const unavailable = builtinUnavailability(tool, hasStructuredData);
    return {
      key: tool.key,
      label: tool.label,
      description: tool.description,
      kind: tool.kind,
      forced: tool.forced,
      available: unavailable === null,
      reason: unavailable,
      server: null,
      writes_data: false,
    };
  });
  const mcp: CatalogEntry[] = organization.mcpServers.flatMap((server) =>
    server.tools.map((tool) => {
      const code = mcpUnavailability(server, tool);
      const entry: CatalogEntry = {
        key: mcpToolKey(server.id, tool.name),
        label: `${server.name} — ${tool.name}`,
        description: tool.description,
        kind: "mcp" as const,
        forced: false,
        available: code === null,
        reason: code ? reason(code) : null,
        server: { id: server.id, name: server.name },
        writes_data: tool.writesData,
      };
      if (actsAsMember(server) && server.active)
        forConnectedMember.set(entry, mcpUnavailability(server, tool, { connected: true }));
      return entry;
    }),
  );
  return [...builtin, ...mcp];
}

/** The catalog as a map by key, for validating lists of tool keys. */
export async function catalogIndex(organizationId: string, tx: DbOrTx = db): Promise<Map<string, CatalogEntry>> {
  return new Map((await listCatalog(organizationId, tx)).map((entry) => [entry.key, entry]));
}
