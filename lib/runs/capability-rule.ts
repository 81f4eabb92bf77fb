import type { ToolEffect } from "@/lib/contracts/types";

/** The capabilities a run is created with: `read` runs only read, `read_write` runs may also propose writes. */
export type RunCapabilities = "read" | "read_write";

/**
 * Whether a run created with `capabilities` may hold a tool of this effect: a
 * `read` run never holds a write. The capability set is built with it, the
 * dispatcher checks it again at each call, and the catalog lock derives its
 * read-only role from it, so the three cannot disagree.
 */
export function runMayHold(capabilities: RunCapabilities, effect: ToolEffect): boolean {
  return effect === "read" || capabilities === "read_write";
}
