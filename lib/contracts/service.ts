import "server-only";
import { catalogIndex, mcpToolKey } from "@/lib/catalog/service";
import { db, type DbOrTx } from "@/lib/db";
import { notFound } from "@/lib/http/errors";
import type { ContractObject } from "./api";
import { isBuiltinKey } from "./builtin";
import { publishMcpContract } from "./mcp";
import { contractHistory, findContract, latestContract } from "./registry";

/**
 * A tool's contract as the API and the console show it. A reviewed MCP tool
 * whose contract the review did not publish yet gets it published here: the
 * content is derived from the reviewed state only, so publishing is the same
 * whoever does it first.
 */
export async function getToolContract(
  organizationId: string,
  key: string,
  version: number | undefined,
  tx: DbOrTx = db,
): Promise<ContractObject> {
  if (!isBuiltinKey(key)) {
    const entry = (await catalogIndex(organizationId, tx)).get(key);
    if (entry?.kind === "mcp" && entry.server)
      await publishMcpContract(tx, {
        serverId: entry.server.id,
        name: key.slice(mcpToolKey(entry.server.id, "").length),
      });
  }
  const registered =
    version === undefined
      ? await latestAsRegistered(organizationId, key, tx)
      : await findContract(organizationId, key, version, tx);
  if (!registered)
    throw notFound(version === undefined ? "Tool contract" : `Version ${version} of this tool's contract`);
  return {
    ...registered.contract,
    retired: registered.retired,
    versions: await contractHistory(organizationId, key, tx),
  };
}

async function latestAsRegistered(organizationId: string, key: string, tx: DbOrTx) {
  const contract = await latestContract(organizationId, key, tx);
  return contract ? { contract, retired: false } : null;
}
