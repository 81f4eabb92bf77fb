// Shared steps of `npm start` and `npm test`: each checks before it acts, so a
// second run on a ready checkout does nothing.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export function step(message) {
  console.log(`\n▸ ${message}`);
}

export function sh(command, args, options = {}) {
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: "inherit",
    ...options,
    env: { ...process.env, ...options.env },
  });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${result.status}`);
}

/** Whether a version (`20.20.2`) is in a range of caret alternatives (`^20.19.0 || ^22.13.0`), the only form package.json uses. */
export function satisfiesNodeRange(version, range) {
  const parse = (text) => text.replace(/^[v^]/, "").split(".").map(Number);
  const [major, minor, patch] = parse(version);
  return range.split("||").some((alternative) => {
    const [wantMajor, wantMinor = 0, wantPatch = 0] = parse(alternative.trim());
    if (major !== wantMajor) return false;
    return minor > wantMinor || (minor === wantMinor && patch >= wantPatch);
  });
}

/**
 * Stops at once, in one line, on a Node that package.json's `engines` does not
 * declare: dependencies fail later and far less clearly (a native module built
 * for another ABI, a missing built-in).
 */
export function checkNodeVersion() {
  const range = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).engines.node;
  if (satisfiesNodeRange(process.versions.node, range)) return;
  console.error(`Guichet needs Node ${range} (package.json engines); this is Node ${process.versions.node}.`);
  process.exit(1);
}

/** npm ci when node_modules is missing or older than the lock file. */
export function ensureDependencies() {
  const marker = path.join(root, "node_modules/.package-lock.json");
  const lock = path.join(root, "package-lock.json");
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  step("Installing dependencies (npm ci)");
  sh("npm", ["ci", "--no-audit", "--no-fund"]);
}

function hashFiles(paths) {
  const hash = createHash("sha256");
  const visit = (p) => {
    const full = path.join(root, p);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const entry of readdirSync(full).sort()) {
        if (entry === "generated" || entry === "node_modules" || entry.startsWith(".next")) continue;
        visit(path.join(p, entry));
      }
    } else {
      hash.update(p).update(readFileSync(full));
    }
  };
  paths.forEach(visit);
  return hash.digest("hex");
}

/** The two Prisma clients (SQLite and PostgreSQL), regenerated when the schema changed. */
export function ensurePrismaClients({ force = false } = {}) {
  const stamp = path.join(root, "lib/db/generated/.schema-hash");
  const wanted = hashFiles(["prisma/schema.base.prisma", "package-lock.json"]);
  if (!force && existsSync(stamp) && readFileSync(stamp, "utf8") === wanted) return;
  step("Generating the Prisma clients");
  sh(process.execPath, ["scripts/prisma-variants.mjs"]);
  const urls = { sqlite: "file:./data/prisma-cli.sqlite", postgresql: "postgresql://postgres@127.0.0.1:5432/postgres" };
  for (const provider of ["sqlite", "postgresql"]) {
    sh(
      process.execPath,
      ["node_modules/prisma/build/index.js", "generate", "--config", `prisma/${provider}/prisma.config.ts`],
      {
        env: { DATABASE_URL: urls[provider], PRISMA_HIDE_UPDATE_MESSAGE: "1" },
      },
    );
  }
  writeFileSync(stamp, wanted);
}

/** The quickstart's session secret: made once, kept under the data directory. */
export function ensureAuthSecret(dataDir) {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, "auth-secret");
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600 });
}

const buildInputs = [
  "app",
  "components",
  "lib",
  "public",
  "instrumentation.ts",
  "next.config.ts",
  "postcss.config.mjs",
  "tsconfig.json",
  "package-lock.json",
  "types",
  "prisma/schema.base.prisma",
];

/** next build when the build folder is missing or was made from other sources. */
export function ensureBuild(distDir = process.env.GUICHET_DIST_DIR ?? ".next") {
  const stamp = path.join(root, distDir, "guichet-source-hash");
  const wanted = hashFiles(buildInputs);
  if (existsSync(path.join(root, distDir, "BUILD_ID")) && existsSync(stamp) && readFileSync(stamp, "utf8") === wanted)
    return false;
  step(`Building the production bundle (next build → ${distDir})`);
  sh(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
    env: { NEXT_TELEMETRY_DISABLED: "1", GUICHET_DIST_DIR: distDir },
  });
  writeFileSync(stamp, wanted);
  return true;
}

export function isRoot() {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

export function commandExists(command) {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
