// npm run openapi — writes openapi/openapi.json; `--check` fails when it is stale.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { buildOpenApiDocument } from "@/lib/openapi/document";

const file = "openapi/openapi.json";
const wanted = JSON.stringify(buildOpenApiDocument(), null, 2) + "\n";
if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = readFileSync(file, "utf8");
  } catch {}
  if (current !== wanted) {
    console.error(`${file} is stale: run npm run openapi and commit it.`);
    process.exit(1);
  }
  console.log(`${file} is up to date.`);
} else {
  mkdirSync("openapi", { recursive: true });
  writeFileSync(file, wanted);
  console.log(`wrote ${file}`);
}
