// npm run traces:record — rewrites the committed traces (tests/traces/*.json)
// from fresh traced runs of the demo scenarios on the real stack: builds if the
// sources changed, then runs tests/traces/record.ts against a new database,
// CRM Acme and model-sim. Review the diff and commit it with the contract
// change that made the regression suite fail.
import { spawnSync } from "node:child_process";
import { ensureBuild, ensurePrismaClients, root } from "./setup.mjs";

ensurePrismaClients();
ensureBuild();
const result = spawnSync(
  process.execPath,
  ["node_modules/vitest/vitest.mjs", "run", "--config", "vitest.traces.config.mts"],
  { cwd: root, stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } },
);
process.exit(result.status ?? 1);
