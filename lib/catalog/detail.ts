import "server-only";
import { z } from "zod";
import { db, type DbOrTx } from "@/lib/db";
import { isNativeToolKey, nativeExecutors } from "@/lib/executors/native";
import { notFound } from "@/lib/http/errors";
import type { CatalogToolObject } from "./api";
import { listCatalog, mcpToolKey } from "./service";

const JsonSchemaObject = z.record(z.string(), z.unknown());

/** One catalog entry and its schemas, as the console's detail panel shows it. */
export async function getCatalogTool(organizationId: string, key: string, tx: DbOrTx = db): Promise<CatalogToolObject> {
  const entry = (await listCatalog(organizationId, tx)).find((candidate) => candidate.key === key);
  if (!entry) throw notFound("Tool");
  if (entry.kind === "mcp" && entry.server) {
    const prefix = mcpToolKey(entry.server.id, "");
    const tool = await tx.mcpTool.findFirst({
      where: { organizationId, serverId: entry.server.id, name: key.slice(prefix.length), removedAt: null },
      select: { inputSchema: true, outputSchema: true },
    });
    return {
      ...entry,
      input_schema: JsonSchemaObject.nullable()
        .catch(null)
        .parse(tool?.inputSchema ?? null),
      output_schema: JsonSchemaObject.nullable()
        .catch(null)
        .parse(tool?.outputSchema ?? null),
    };
  }
  const contract = isNativeToolKey(key) ? nativeExecutors[key].contract : null;
  return { ...entry, input_schema: contract?.inputSchema ?? null, output_schema: contract?.outputSchema ?? null };
}
