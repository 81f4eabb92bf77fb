import "server-only";
import { db, type DbOrTx } from "@/lib/db";
import { isoOffset } from "@/lib/time";
import { builtinContract, builtinVersions, currentBuiltinContract, isBuiltinKey } from "./builtin";
import type { Contract } from "./types";
import { StoredContract } from "./schemas";

// The versioned registry: one exact lookup by key and version, for built-in
// tools (in code) and MCP tools (published rows). Never a constructed method
// name: a key that is not in the registry resolves to nothing.

export interface RegisteredContract {
  contract: Contract;
  retired: boolean;
}

// Published MCP versions never change, so a row read once can be kept.
const published = new Map<string, Contract>();
const PUBLISHED_CACHE_LIMIT = 2_000;

function cacheKey(organizationId: string, key: string, version: number): string {
  return `${organizationId}\n${key}\n${version}`;
}

export async function findContract(
  organizationId: string,
  key: string,
  version: number,
  tx: DbOrTx = db,
): Promise<RegisteredContract | null> {
  if (isBuiltinKey(key)) return builtinContract(key, version) ?? null;
  const cached = published.get(cacheKey(organizationId, key, version));
  if (cached) return { contract: cached, retired: false };
  const row = await tx.toolContract.findUnique({
    where: { organizationId_key_version: { organizationId, key, version } },
  });
  if (!row) return null;
  const contract: Contract = StoredContract.parse(row.contract);
  if (published.size >= PUBLISHED_CACHE_LIMIT) published.delete(published.keys().next().value as string);
  published.set(cacheKey(organizationId, key, version), contract);
  return { contract, retired: false };
}

const MCP_KEY = /^mcp_([0-9]{1,9})_(.+)$/;

/**
 * True when the key names a tool of the organization's registry: a built-in
 * tool, an MCP tool with a published contract, or one of its connectors' tools
 * whose contract is not published yet (still a known tool, just not one a run
 * can carry). Rows are matched exactly; nothing is derived from the name but
 * the two values of the lookup.
 */
export async function isRegisteredKey(organizationId: string, key: string, tx: DbOrTx = db): Promise<boolean> {
  if (isBuiltinKey(key)) return true;
  if ((await tx.toolContract.count({ where: { organizationId, key } })) > 0) return true;
  const mcp = MCP_KEY.exec(key);
  if (!mcp) return false;
  return (
    (await tx.mcpTool.count({ where: { organizationId, serverId: Number(mcp[1]), name: mcp[2], removedAt: null } })) > 0
  );
}

/** The latest published version of a key, what a new run freezes. */
export async function latestContract(organizationId: string, key: string, tx: DbOrTx = db): Promise<Contract | null> {
  if (isBuiltinKey(key)) return currentBuiltinContract(key) ?? null;
  const row = await tx.toolContract.findFirst({ where: { organizationId, key }, orderBy: { version: "desc" } });
  return row ? StoredContract.parse(row.contract) : null;
}

export interface ContractVersionSummary {
  version: number;
  published_at: string | null;
  retired: boolean;
}

/** Every version of a key, newest first. Built-in versions ship with the code (no publication date). */
export async function contractHistory(
  organizationId: string,
  key: string,
  tx: DbOrTx = db,
): Promise<ContractVersionSummary[]> {
  if (isBuiltinKey(key)) {
    return builtinVersions(key)
      .map((e) => ({ version: e.contract.version, published_at: null, retired: e.retired }))
      .sort((a, b) => b.version - a.version);
  }
  const rows = await tx.toolContract.findMany({
    where: { organizationId, key },
    orderBy: { version: "desc" },
    select: { version: true, publishedAt: true },
  });
  return rows.map((r) => ({ version: r.version, published_at: isoOffset(r.publishedAt), retired: false }));
}
