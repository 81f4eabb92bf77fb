// Typed React Query key factory: every query and invalidation goes through it.
export const queryKeys = {
  apiKeys: { all: ["api-keys"] as const },
  agents: { all: ["agents"] as const, detail: (id: string) => ["agents", id] as const, documents: (id: string) => ["agents", id, "documents"] as const },
  tools: { all: ["tools"] as const, detail: (key: string) => ["tools", key] as const, contract: (key: string) => ["tools", key, "contract"] as const },
  models: { all: ["models"] as const },
  mcpServers: { all: ["mcp-servers"] as const, detail: (id: number) => ["mcp-servers", id] as const, tools: (id: number) => ["mcp-servers", id, "tools"] as const },
  runs: { all: ["runs"] as const, steps: (id: string) => ["runs", id, "steps"] as const },
  telemetry: { all: ["telemetry"] as const },
  proposals: { all: ["proposals"] as const, detail: (id: string) => ["proposals", id] as const, pending: ["proposals", "list", "pending"] as const, recent: ["proposals", "list", "recent"] as const, count: ["proposals", "count"] as const },
  operations: { all: ["operations"] as const, unknown: ["operations", "unknown"] as const, recent: ["operations", "recent"] as const },
  policies: { all: ["policies"] as const, versions: ["policies", "versions"] as const },
};
