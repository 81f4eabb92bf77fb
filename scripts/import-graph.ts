import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

// A small walker of the project's static import graph, for the server boundary
// test. It follows what a bundler keeps: `import … from`, `export … from` and
// bare `import "x"`, not type-only imports (erased at compile time) nor dynamic
// `import()` (loaded on demand, e.g. behind a runtime check). Specifiers are
// resolved like tsconfig's paths: "@/x" from the repository root, "./x" from
// the importing file; packages are left out (they are not ours to bound).

export const root = path.resolve(__dirname, "..");
const extensions = [".ts", ".tsx", ".mts", ".js", ".mjs", "/index.ts", "/index.tsx"];

/** Every runtime import specifier of one source file. */
export function runtimeImports(source: string): string[] {
  const withoutComments = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const found: string[] = [];
  const fromClause = /^\s*(import|export)\s+(type\s+)?([^;]*?)\s+from\s+["']([^"']+)["']/gm;
  for (const match of withoutComments.matchAll(fromClause)) {
    const [, , typeOnly, clause, specifier] = match;
    if (typeOnly) continue;
    // `import { type A, type B } from` is erased too; `import X, { type A }` is not.
    const named = /^\{([\s\S]*)\}$/.exec(clause.trim());
    if (
      named &&
      named[1]
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
        .every((s) => s.startsWith("type "))
    )
      continue;
    found.push(specifier);
  }
  for (const match of withoutComments.matchAll(/^\s*import\s+["']([^"']+)["']/gm)) found.push(match[1]);
  return found;
}

/** The file a specifier names, or null for a package. */
export function resolveSpecifier(specifier: string, fromFile: string): string | null {
  let base: string;
  if (specifier.startsWith("@/")) base = path.join(root, specifier.slice(2));
  else if (specifier.startsWith(".")) base = path.resolve(path.dirname(fromFile), specifier);
  else return null;
  if (existsSync(base) && statSync(base).isFile()) return base;
  for (const extension of extensions) if (existsSync(base + extension)) return base + extension;
  throw new Error(`${path.relative(root, fromFile)}: cannot resolve ${specifier}`);
}

/**
 * Walks from one entry file; returns the first chain that reaches a file for
 * which `stop` is true (entry first), or null when none does.
 */
export function findChain(entry: string, stop: (file: string) => boolean): string[] | null {
  const parent = new Map<string, string | null>([[entry, null]]);
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (stop(file)) {
      const chain: string[] = [];
      for (let at: string | null = file; at; at = parent.get(at) ?? null) chain.unshift(path.relative(root, at));
      return chain;
    }
    for (const specifier of runtimeImports(readFileSync(file, "utf8"))) {
      const next = resolveSpecifier(specifier, file);
      if (next && !parent.has(next)) {
        parent.set(next, file);
        queue.push(next);
      }
    }
  }
  return null;
}

/** Every .ts/.tsx file under a folder of the repository (generated code and build folders left out). */
export function sourceFiles(folder: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === "node_modules" || name === "generated" || name.startsWith(".next")) continue;
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(full);
    }
  };
  const start = path.join(root, folder);
  if (existsSync(start)) walk(start);
  return out;
}
