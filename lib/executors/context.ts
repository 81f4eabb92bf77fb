// What the dispatcher hands every executor besides the validated arguments.
// Executors read no environment and no request: the run's scope and the
// operator's settings come in here, so an executor cannot reach beyond its run.

import type { OperationFollower } from "./operations/tools";
import type { WebFetchConfig } from "./native/web-fetch";
import type { WebSearchConfig } from "./native/web-search";

export interface RunScope {
  organizationId: string;
  runId: string;
  agentId: string;
  /** The run's own input files (the agent's documents are added by the file tools). */
  fileIds: string[];
  /** The member the run acts for (their own connector credentials), or null: an API key's or a widget's run. */
  memberId: string | null;
}

export interface ExecutionContext {
  signal: AbortSignal;
  run: RunScope;
  /** Absolute data directory where file bytes live (File.storageKey is relative to it). */
  dataDir: string;
  web: WebFetchConfig;
  search: WebSearchConfig;
  /** The operator's allowlist of private origins, for destinations an admin chose (MCP servers); never for a model's URL. */
  privateOrigins: readonly string[];
  /** Reads the run's operations for get_operation (the dispatcher lends it; absent elsewhere). */
  operations?: OperationFollower;
}

export interface Executor {
  /** `args` has already passed the contract's input schema; the dispatcher guarantees it. */
  execute(args: unknown, ctx: ExecutionContext): Promise<unknown>;
}
