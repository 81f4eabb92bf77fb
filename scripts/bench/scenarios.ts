import type { BenchScenario } from "./main";
import { agentScenarios } from "./agents";
import { catalogScenario } from "./catalog";
import { dispatchScenarios } from "./dispatch";
import { mcpScenarios } from "./mcp";

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

// One entry per measured endpoint; each issue adds its own.
export const benchScenarios: BenchScenario[] = [
  {
    name: "GET /v1/models (API key, scopes, rate limit, database)",
    prepare: async (_stack, key) => ({ path: "/v1/models", headers: bearer(key) }),
  },
  catalogScenario,
  ...agentScenarios,
  ...dispatchScenarios,
  ...mcpScenarios,
];
