// npm test step: the committed OpenAPI document passes Redocly's recommended
// ruleset (redocly.yaml) and Spectral's spectral:oas (.spectral.yaml) with zero
// problems — warnings fail too, so a generated client never meets one.
// Alone: node scripts/openapi-lint.mjs
import { spawnSync } from "node:child_process";
import { root } from "./setup.mjs";

const document = "openapi/openapi.json";
const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" };
let failed = false;

const redocly = spawnSync(
  process.execPath,
  ["node_modules/@redocly/cli/bin/cli.js", "lint", document, "--format=json"],
  { cwd: root, env, encoding: "utf8" },
);
try {
  const report = JSON.parse(redocly.stdout);
  const { errors, warnings } = report.totals;
  console.log(`Redocly (recommended): ${errors} errors, ${warnings} warnings`);
  for (const problem of report.problems)
    console.log(
      `  ${problem.severity} ${problem.ruleId}: ${problem.message} (${problem.location?.[0]?.pointer ?? ""})`,
    );
  failed ||= errors + warnings > 0;
} catch {
  console.error(`Redocly did not produce a report (exit ${redocly.status}):\n${redocly.stderr}`);
  failed = true;
}

const spectral = spawnSync(
  process.execPath,
  ["node_modules/@stoplight/spectral-cli/dist/index.js", "lint", document, "--fail-severity=hint", "--format=text"],
  { cwd: root, env, encoding: "utf8" },
);
console.log(`Spectral (spectral:oas): ${spectral.status === 0 ? "no problems" : "problems found"}`);
if (spectral.status !== 0) console.log(spectral.stdout + spectral.stderr);
failed ||= spectral.status !== 0;

process.exit(failed ? 1 : 0);
