import type { CatalogEntryObject } from "@/lib/catalog/schemas";
import { reasonFr } from "@/lib/catalog/reasons";
import type { z } from "zod";

// The catalog in the console's words.

export type CatalogEntry = z.infer<typeof CatalogEntryObject>;

export const kindLabels: Record<CatalogEntry["kind"], string> = {
  native: "Intégré",
  data: "Données",
  mcp: "Connecteur MCP",
};

/** The reason an entry is unavailable, in plain French (the API's message is for developers). */
export function reasonText(reason: CatalogEntry["reason"]): string | null {
  if (!reason) return null;
  return reasonFr(reason);
}
