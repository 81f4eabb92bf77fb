import type { ExecutionContext, Executor } from "./context";
import { dataExecutors } from "./data/tools";
import { fileExecutors } from "./files/tools";
import { nativeExecutors } from "./native";
import { operationExecutors } from "./operations/tools";
import { callMcpTool } from "./mcp";

// Every executor Guichet has, by exact key. Only the dispatcher imports this
// module: a tool runs after its contract was found, its arguments validated
// and its policy checked, never otherwise.

export type { ExecutionContext, Executor, RunScope } from "./context";
export { ToolError, asToolError, toolErrorCodes, type ToolErrorCode } from "./errors";
export { refusedCredentials } from "./mcp";

const nativeAsExecutors: Record<string, Executor> = Object.fromEntries(
  Object.entries(nativeExecutors).map(([key, executor]) => [
    key,
    {
      execute: (args: unknown, ctx: ExecutionContext) =>
        executor.execute(args, { signal: ctx.signal, web: ctx.web, search: ctx.search }),
    },
  ]),
);

const builtinExecutors: Readonly<Record<string, Executor>> = Object.freeze({
  ...nativeAsExecutors,
  ...fileExecutors,
  ...dataExecutors,
  ...operationExecutors,
});

/** The built-in executor of exactly this key, or undefined ("constructor" or "__proto__" find nothing). */
export function builtinExecutor(key: string): Executor | undefined {
  return Object.prototype.hasOwnProperty.call(builtinExecutors, key) ? builtinExecutors[key] : undefined;
}

export function builtinExecutorKeys(): string[] {
  return Object.keys(builtinExecutors);
}

/** An executor for one MCP tool at a resolved endpoint, with the organization's token or a member's own. */
export function mcpExecutor(
  endpoint: {
    url: string;
    token: string | null;
    serverId: number;
    /** Whose own credential `token` is: their sessions are theirs alone in the pool. */
    memberId?: string;
  },
  tool: string,
  timeoutMs: number,
): Executor {
  return {
    execute: async (args, ctx) =>
      callMcpTool(
        {
          url: endpoint.url,
          token: endpoint.token,
          tool,
          net: { privateOrigins: ctx.privateOrigins },
          // The connector's token is the organization's: its session is shared by the organization's runs only.
          // A member's own credential gets a session of its own.
          scope: {
            organizationId: ctx.run.organizationId,
            serverId: endpoint.serverId,
            memberId: endpoint.memberId ?? null,
          },
        },
        args,
        { signal: ctx.signal, timeoutMs },
      ),
  };
}
