import { forcedToolKeys } from "@/lib/catalog/builtin";
import type { CatalogEntry } from "@/lib/catalog/service";
import { ApiError, type FieldError } from "@/lib/http/errors";
import { agentLimits } from "./api";

const forced = new Set(forcedToolKeys);

/** A tool key as sent, with its position in the request (for the field path). */
interface SentTool {
  key: string;
  index: number;
}

/** Removes forced tools and duplicates, silently, keeping the order of first appearance. */
export function normalizeTools(keys: readonly string[]): SentTool[] {
  const seen = new Set<string>();
  const kept: SentTool[] = [];
  keys.forEach((key, index) => {
    if (forced.has(key) || seen.has(key)) return;
    seen.add(key);
    kept.push({ key, index });
  });
  return kept;
}

/**
 * Checks only the keys the agent does not carry yet: a tool saved earlier that
 * has since become unavailable stays (it is reported in `unavailable_tools`),
 * while a new key must exist (`unknown_tool`) and be available now
 * (`tool_unavailable`, with the catalog's reason).
 */
export function assertToolsAddable(
  tools: SentTool[],
  saved: readonly string[],
  catalog: Map<string, CatalogEntry>,
  /** A per-member connector's tool a connected member may use: it goes on agents, each run checks the member. */
  usableByConnectedMember: (entry: CatalogEntry) => boolean = () => false,
): void {
  if (tools.length > agentLimits.tools) {
    const message = `At most ${agentLimits.tools} tools (forced tools and duplicates aside); ${tools.length} given.`;
    throw new ApiError("invalid_parameter", message, { errors: [{ field: "tools", code: "too_big", message }] });
  }
  const already = new Set(saved);
  const problems: (FieldError & { reason?: CatalogEntry["reason"] })[] = [];
  for (const { key, index } of tools) {
    if (already.has(key)) continue;
    const entry = catalog.get(key);
    if (!entry) problems.push({ field: `tools[${index}]`, code: "unknown_tool", message: `Unknown tool: ${key}.` });
    else if (!entry.available && !usableByConnectedMember(entry))
      problems.push({
        field: `tools[${index}]`,
        code: "tool_unavailable",
        message: `${key} is unavailable: ${entry.reason?.message ?? "unavailable"}`,
        reason: entry.reason,
      });
  }
  if (problems.length === 0) return;
  const first = problems[0];
  const errors = problems.map(({ field, code, message }) => ({ field, code, message }));
  if (first.code === "unknown_tool") throw new ApiError("unknown_tool", first.message, { errors });
  throw new ApiError("tool_unavailable", first.message, { errors, reason: first.reason ?? undefined });
}

/** The saved keys that a run could not use now (unavailable, or gone from the catalog). */
export function unavailableTools(tools: readonly string[], catalog: Map<string, CatalogEntry>): string[] {
  return tools.filter((key) => !catalog.get(key)?.available);
}
