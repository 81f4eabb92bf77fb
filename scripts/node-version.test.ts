import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

// package.json declares one Node range; every package of the lock file must
// accept all of it, or a fresh `npm ci` warns (EBADENGINE) and the package may
// not run. Checked at both ends of each declared major, with npm's own semver.

// setup.mjs is plain JavaScript for `npm start` before any install: its one function used here, typed.
const { satisfiesNodeRange } = (await import(new URL("./setup.mjs", import.meta.url).href)) as {
  satisfiesNodeRange(version: string, range: string): boolean;
};
const semver = createRequire(import.meta.url)("semver") as { satisfies(version: string, range: string): boolean };
const declared = (JSON.parse(readFileSync("package.json", "utf8")) as { engines: { node: string } }).engines.node;
const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean; os?: string[] }>;
};

/** The first version of each alternative (`^20.19.0` → 20.19.0) and a late one in the same major. */
function versionsOf(range: string): string[] {
  return range.split("||").flatMap((alternative) => {
    const first = alternative.trim().replace(/^\^/, "");
    return [first, `${first.split(".")[0]}.99.0`];
  });
}

describe("the declared Node range", () => {
  it("is accepted by every package of the lock file", () => {
    const refusing: string[] = [];
    for (const [name, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      // Platform builds for other systems (sharp's win32 binaries…) are never installed here.
      if (!range || (entry.optional && entry.os && !entry.os.includes(process.platform))) continue;
      for (const version of versionsOf(declared))
        if (!semver.satisfies(version, range)) refusing.push(`${name || "guichet"} (${range}) refuses ${version}`);
    }
    expect(refusing).toEqual([]);
  });

  it("is what the start check reads: the running Node passes, others are named", () => {
    expect(satisfiesNodeRange(process.versions.node, declared)).toBe(true);
    expect(satisfiesNodeRange("20.18.3", declared)).toBe(false);
    expect(satisfiesNodeRange("22.12.0", declared)).toBe(false);
    expect(satisfiesNodeRange("22.13.0", declared)).toBe(true);
    expect(satisfiesNodeRange("18.20.0", declared)).toBe(false);
  });
});
