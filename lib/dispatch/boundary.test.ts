import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// "No tool can run except through the dispatcher": outside lib/dispatch (and
// the executors themselves), no module may import what executes a tool — only
// the error vocabulary and types. Checked on the source, so a new shortcut
// fails here before it ships.

const root = path.resolve(__dirname, "../..");
const scanned = ["lib", "app", "components", "scripts", "prisma"];
const EXECUTING = new Set([
  "builtinExecutor",
  "mcpExecutor",
  "callMcpTool",
  "nativeExecutors",
  "fileExecutors",
  "dataExecutors",
  "calculate",
  "createChart",
  "webFetch",
  "webSearch",
  "executeUnderContract",
]);
// dispatchToolCall is the dispatcher itself: calling it is the way in, from anywhere.
/** Modules that may hold an executing name, and why. */
const allowed: Record<string, string> = {
  "lib/catalog/detail.ts": "reads nativeExecutors[key].contract (schemas), never execute",
  "lib/contracts/builtin.ts": "reads the executors' schemas to build the contracts",
  // The dispatcher's write path (the WritePath lib/proposals registers): reached only from a dispatched call.
  "lib/proposals/commit.ts": "runs an approved write under its contract, inside the dispatcher's write path",
  "scripts/bench/dispatch-overhead.ts":
    "the benchmark: calls the executor directly only to measure, beside it, the same call through the dispatcher",
  "lib/operations/long.ts":
    "asks a long operation's job status (get_operation, lent by the dispatcher) or its cancel tool (an operator's cancel)",
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (name === "node_modules" || name === "generated" || name.startsWith(".")) return [];
    if (statSync(full).isDirectory()) return files(full);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [full] : [];
  });
}

const IMPORT = /import\s+(type\s+)?\{([^}]*)\}\s+from\s+["']([^"']+)["']/g;

describe("the dispatcher is the only way a tool executes", () => {
  it("no module outside lib/dispatch and lib/executors imports an executing name", () => {
    const offenders: string[] = [];
    for (const file of scanned.flatMap((dir) => files(path.join(root, dir)))) {
      const relative = path.relative(root, file).split(path.sep).join("/");
      if (relative.startsWith("lib/dispatch/") || relative.startsWith("lib/executors/") || relative in allowed)
        continue;
      for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
        const [, typeOnly, names, source] = match;
        if (typeOnly || !/(^|\/)(executors|dispatch)(\/|$)/.test(source)) continue;
        for (const name of names
          .split(",")
          .map(
            (n) =>
              n
                .trim()
                .replace(/^type\s+/, "")
                .split(/\s+as\s+/)[0],
          )
          .filter(Boolean)) {
          if (EXECUTING.has(name)) offenders.push(`${relative}: ${name} from ${source}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});
