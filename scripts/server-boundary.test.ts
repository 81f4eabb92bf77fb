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
const serverOnly = (file: string) => file.startsWith(dbFolder) || /^\s*import\s+["']server-only["']/m.test(readFileSync(file, "utf8"));

const isClientComponent = (file: string) => /^\s*["']use client["']/.test(readFileSync(file, "utf8"));
// The edge entry files, and the method gate that instrumentation.ts installs in
// front of every request: both must stay light (no database, no service).
const edgeEntries = ["proxy.ts", "middleware.ts", "instrumentation.ts", "lib/openapi/method-gate.ts"].map((f) => path.join(root, f)).filter((f) => existsSync(f));
const schemas = sourceFiles("lib").filter((f) => /\/(schemas|api)\.ts$/.test(f));
const clientModules = [...sourceFiles("components"), ...sourceFiles("app"), ...sourceFiles("lib/client")].filter((f) => isClientComponent(f) || f.includes(`${path.sep}lib${path.sep}client${path.sep}`));
const entries = [...edgeEntries, ...schemas, ...clientModules];

describe("server boundary", () => {
  it("has the entries it means to check", () => {
    expect(schemas.filter((f) => f.endsWith("schemas.ts")).length).toBeGreaterThanOrEqual(13);
    expect(clientModules.length).toBeGreaterThanOrEqual(30);
    expect(edgeEntries.length).toBeGreaterThanOrEqual(1);
  });

  it.each(entries.map((f) => [path.relative(root, f), f]))("%s reaches neither lib/db nor a server-only module", (_name, entry) => {
    expect(findChain(entry, serverOnly)).toBeNull();
  });

  it("finds a crossing when there is one (the walker itself works)", () => {
    expect(findChain(path.join(root, "lib/agents/service.ts"), (f) => f.startsWith(dbFolder))).toEqual(["lib/agents/service.ts", "lib/db/index.ts"]);
    expect(runtimeImports('import type { A } from "@/lib/db";\nimport { type B } from "@/lib/db";\nexport { c } from "./c";\nimport "server-only";')).toEqual(["./c", "server-only"]);
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
