import { defineConfig } from "vitest/config";
import api from "./vitest.api.config.mts";

// `npm run traces:record`: the API suite's stack (global setup) for one file
// that plays the demo scenarios with tracing on and rewrites tests/traces/*.json.
export default defineConfig({ ...api, test: { ...api.test, include: ["tests/traces/record.ts"] } });
