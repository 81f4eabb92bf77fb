import { calculate, calculateContract, type CalculateInput } from "./calculate";
import { createChart, createChartContract, type CreateChartInput } from "./create-chart";
import type { ToolContext, ToolContract } from "./types";
import { webFetch, webFetchContract, type WebFetchConfig, type WebFetchInput } from "./web-fetch";
import { webSearch, webSearchContract, type WebSearchConfig, type WebSearchInput } from "./web-search";

export type { JsonSchema, ToolContext, ToolContract } from "./types";

/** Everything the dispatcher hands a native executor: the call's signal and the operator's settings. */
export interface NativeToolContext extends ToolContext {
  web?: WebFetchConfig;
  search?: WebSearchConfig;
}

export interface NativeExecutor {
  contract: ToolContract;
  /** `args` must already have passed `contract.inputSchema`; the dispatcher guarantees it. */
  execute: (args: unknown, ctx: NativeToolContext) => Promise<unknown>;
}

export type NativeToolKey = "calculate" | "create_chart" | "web_fetch" | "web_search";

// Looked up by exact key only (see isNativeToolKey); the casts below are sound
// because the dispatcher validates arguments against the contract first.
export const nativeExecutors: Readonly<Record<NativeToolKey, NativeExecutor>> = Object.freeze({
  calculate: {
    contract: calculateContract,
    execute: (args, ctx) => calculate(args as CalculateInput, { signal: ctx.signal }),
  },
  create_chart: {
    contract: createChartContract,
    execute: (args, ctx) => createChart(args as CreateChartInput, { signal: ctx.signal }),
  },
  web_fetch: {
    contract: webFetchContract,
    execute: (args, ctx) => webFetch(args as WebFetchInput, { ...ctx.web, signal: ctx.signal }),
  },
  web_search: {
    contract: webSearchContract,
    execute: (args, ctx) => webSearch(args as WebSearchInput, { ...ctx.search, signal: ctx.signal }),
  },
});

/** True only for an own key of the registry, so "constructor" or "__proto__" never resolve. */
export function isNativeToolKey(key: string): key is NativeToolKey {
  return Object.prototype.hasOwnProperty.call(nativeExecutors, key);
}
