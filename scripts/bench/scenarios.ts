import type { BenchScenario } from "./bench";
import { agentScenarios } from "./bench-agents";
import { catalogScenario } from "./bench-catalog";
import { dispatchScenarios } from "./bench-dispatch";
import { mcpScenarios } from "./bench-mcp";

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
