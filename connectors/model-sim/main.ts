import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { namedScriptId, ScriptBody } from "./script";
import { startModelSim } from "./server";

// CLI: npx tsx connectors/model-sim/main.ts
// Env: SIM_PORT (4020), SIM_HOST (127.0.0.1), SIM_API_KEY (optional bearer key),
//      SIM_SCRIPT (a JSON script file answering conversations without a marker),
//      SIM_SCRIPTS_DIR (a folder of JSON scripts, each selected by `sim:demo_<file name>`),
//      SIM_ENABLE_CONTROL ("1" enables /__control/*).

async function main() {
  const port = Number(process.env.SIM_PORT ?? 4020);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`SIM_PORT is not a port: ${process.env.SIM_PORT}`);
  const defaultScript = process.env.SIM_SCRIPT
    ? ScriptBody.parse(JSON.parse(readFileSync(process.env.SIM_SCRIPT, "utf8")))
    : undefined;
  const dir = process.env.SIM_SCRIPTS_DIR;
  const namedScripts = dir
    ? Object.fromEntries(
        readdirSync(dir)
          .filter((file) => file.endsWith(".json"))
          .map((file) => [
            namedScriptId(file),
            ScriptBody.parse(JSON.parse(readFileSync(path.join(dir, file), "utf8"))),
          ]),
      )
    : undefined;
  const sim = await startModelSim({
    namedScripts,
    port,
    host: process.env.SIM_HOST || "127.0.0.1",
    apiKey: process.env.SIM_API_KEY || undefined,
    defaultScript,
    enableControl: process.env.SIM_ENABLE_CONTROL === "1",
  });
  console.log(`model-sim (OpenAI-compatible chat completions) on ${sim.url}`);
  const stop = () =>
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((error) => {
  console.error("[model-sim] failed to start:", error);
  process.exit(1);
});
