import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findChain, resolveSpecifier, root, runtimeImports, sourceFiles } from "./import-graph";

// What runs in the browser or at the edge must never pull in the database or a
// service: a client component that reached lib/db would ship Prisma to the
// browser (or fail the build), and the proxy runs on every /v1 request. The
// server side is marked by `import "server-only"`; this test walks the import
// graph from every browser/edge entry and names the chain that crosses.

const dbFolder = path.join(root, "lib/db") + path.sep;
const serverOnly = (file: string) =>
  file.startsWith(dbFolder) || /^\s*import\s+["']server-only["']/m.test(readFileSync(file, "utf8"));

const isClientComponent = (file: string) => /^\s*["']use client["']/.test(readFileSync(file, "utf8"));
// The edge entry files, and the method gate that instrumentation.ts installs in
// front of every request: both must stay light (no database, no service).
const edgeEntries = ["proxy.ts", "middleware.ts", "instrumentation.ts", "lib/openapi/method-gate.ts"]
  .map((f) => path.join(root, f))
  .filter((f) => existsSync(f));
const schemas = sourceFiles("lib").filter((f) => /\/(schemas|api)\.ts$/.test(f));
const clientModules = [...sourceFiles("components"), ...sourceFiles("app"), ...sourceFiles("lib/client")].filter(
  (f) => isClientComponent(f) || f.includes(`${path.sep}lib${path.sep}client${path.sep}`),
);
const entries = [...edgeEntries, ...schemas, ...clientModules];

describe("server boundary", () => {
  it("has the entries it means to check", () => {
    expect(schemas.filter((f) => f.endsWith("schemas.ts")).length).toBeGreaterThanOrEqual(13);
    expect(clientModules.length).toBeGreaterThanOrEqual(30);
    expect(edgeEntries.length).toBeGreaterThanOrEqual(1);
  });

  it.each(entries.map((f) => [path.relative(root, f), f]))(
    "%s reaches neither lib/db nor a server-only module",
    (_name, entry) => {
      expect(findChain(entry, serverOnly)).toBeNull();
    },
  );

  it("finds a crossing when there is one (the walker itself works)", () => {
    expect(findChain(path.join(root, "lib/agents/service.ts"), (f) => f.startsWith(dbFolder))).toEqual([
      "lib/agents/service.ts",
      "lib/db/index.ts",
    ]);
    expect(
      runtimeImports(
        'import type { A } from "@/lib/db";\nimport { type B } from "@/lib/db";\nexport { c } from "./c";\nimport "server-only";',
      ),
    ).toEqual(["./c", "server-only"]);
  });

  it("marks every module that imports the database as server-only", () => {
    const db = path.join(root, "lib/db/index.ts");
    const unmarked = sourceFiles("lib")
      .filter((f) => !f.endsWith(".test.ts") && !f.startsWith(dbFolder))
      .filter((f) => runtimeImports(readFileSync(f, "utf8")).some((s) => resolveSpecifier(s, f) === db))
      .filter((f) => !serverOnly(f))
      .map((f) => path.relative(root, f));
    expect(unmarked).toEqual([]);
  });
});

// The write path is three folders that call in one direction: the proposals
// engine implements the dispatcher's WritePath and records operations; the
// operations ask status through the dispatcher; the dispatcher knows neither.
// Type-only imports count too: a cycle of types is still a tangle to read.
describe("write path layering", () => {
  const layers = ["lib/dispatch", "lib/proposals", "lib/operations"];
  const layerOf = (file: string) => layers.find((layer) => file.startsWith(path.join(root, layer) + path.sep)) ?? null;
  const anyImport = /^\s*(?:import|export)\s+(?:type\s+)?(?:[^;]*?\s+from\s+)?["']([^"']+)["']/gm;
  const edges = new Map<string, Set<string>>(layers.map((layer) => [layer, new Set<string>()]));
  const witness = new Map<string, string>();
  for (const layer of layers) {
    for (const file of sourceFiles(layer).filter((f) => !f.endsWith(".test.ts"))) {
      for (const [, specifier] of readFileSync(file, "utf8").matchAll(anyImport)) {
        const target = resolveSpecifier(specifier, file);
        const to = target ? layerOf(target) : null;
        if (to && to !== layer) {
          edges.get(layer)!.add(to);
          witness.set(`${layer} → ${to}`, path.relative(root, file));
        }
      }
    }
  }
  const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
    [...edges.get(from)!].some((next) => next === to || (!seen.has(next) && (seen.add(next), reaches(next, to, seen))));

  it("lib/dispatch imports neither lib/proposals nor lib/operations", () => {
    expect(
      [...edges.get("lib/dispatch")!].map((to) => `lib/dispatch → ${to} (${witness.get(`lib/dispatch → ${to}`)})`),
    ).toEqual([]);
  });

  it("has no cycle between lib/dispatch, lib/proposals and lib/operations", () => {
    const cycles = layers
      .filter((layer) => reaches(layer, layer))
      .map(
        (layer) =>
          `${layer}: ${[...edges.get(layer)!].map((to) => `→ ${to} (${witness.get(`${layer} → ${to}`)})`).join(", ")}`,
      );
    expect(cycles).toEqual([]);
  });

  it("sees the edges that are meant to be there (the walker itself works)", () => {
    expect([...edges.get("lib/proposals")!].sort()).toEqual(["lib/dispatch", "lib/operations"]);
    expect([...edges.get("lib/operations")!]).toEqual(["lib/dispatch"]);
  });
});
