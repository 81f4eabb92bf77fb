import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  CancelTaskRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ErrorCode,
  McpError,
  ReadResourceRequestSchema,
  type ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import type { RunRow } from "@/lib/runs/service";
import type { RunWarning } from "@/lib/runs/capabilities";
import { cancelMcpCall, trackMcpCall } from "./cancellation";
import { internalErrorData, ProtocolError } from "./http";
import { listRunResources, readRunResource } from "./resources";
import { callRunTool, listRunTools, type CommitRoute } from "./tools";
import { callRunToolAsTask, cancelTask, getTask, listTasks, taskResult } from "./tasks";
import { inMcpServerSpan } from "@/lib/observability/spans";

// The SDK server of one request of one session: a fresh low-level `Server`
// whose handlers read the session's run. Nothing is kept between requests (the
// run in the database is the session), so any instance answers any request.

export const SERVER_INFO = { name: "guichet", title: "Guichet", version: "1.0.0" } as const;

/**
 * Each SDK server would build its own JSON Schema validator (a new Ajv with its
 * formats, about a millisecond per request) for what this server never asks a
 * client for (elicitation): every request's server shares one.
 */
const sharedValidator = new AjvJsonSchemaValidator();

/** Progress every second while a call runs, for clients that asked for it with a progress token. */
const PROGRESS_INTERVAL_MS = 1000;

/**
 * `initialize`'s instructions: how a write is committed, naming the exact tool
 * for each tool that makes proposals (a preview's commit is another tool), and
 * what the run left out and why, so the model knows before it tries.
 */
export function sessionInstructions(routes: CommitRoute[], warnings: RunWarning[]): string {
  const lines = [
    'Tools governed by Guichet. A tool that changes data answers with a proposal card: a person approves it in the console, then call the tool the card names (proposal.commit.tool, also written in its text) with only {"proposal_id"}.',
  ];
  for (const route of routes)
    lines.push(
      route.proposedBy === route.commitTool
        ? `${route.commitTool}: once its proposal is approved, call ${route.commitTool} again with only {"proposal_id"}.`
        : `${route.proposedBy}: once its proposal is approved, call ${route.commitTool} with only {"proposal_id"} (not ${route.proposedBy}).`,
    );
  lines.push(
    "A preview of a change already on file answers NO_CHANGE (without isError, and no card): nothing to approve or commit.",
  );
  lines.push("A refused call comes back with isError and a typed code (structuredContent.error): read it and re-plan.");
  for (const warning of warnings)
    lines.push(`Not available in this session: ${warning.tool} — ${warning.reason.message}`);
  return lines.join("\n");
}

export interface SessionServerOptions {
  consoleOrigin: string;
  /** This HTTP request's id, quoted in an internal error and in the log. */
  requestId: string;
  /** Only on `initialize`. */
  instructions?: string;
  /** The session's client declared URL-mode elicitation: a commit waiting for approval hands it the approval page. */
  urlElicitation?: boolean;
  /** The HTTP request's own signal: a blocking `tasks/result` stops waiting when the client goes away. */
  signal?: AbortSignal;
}

/**
 * The SDK answers a handler's exception with the exception's own message: an
 * unexpected one becomes "Internal error." (-32603) with the request id, and
 * the details go to the log only.
 */
function withoutLeaks<Args extends unknown[], Result>(
  requestId: string,
  handler: (...args: Args) => Promise<Result>,
): (...args: Args) => Promise<Result> {
  return async (...args) => {
    try {
      return await handler(...args);
    } catch (error) {
      if (error instanceof ProtocolError || error instanceof McpError) throw error;
      throw new ProtocolError(ErrorCode.InternalError, "Internal error.", internalErrorData(requestId, error));
    }
  };
}

export function buildSessionServer(run: RunRow | null, options: SessionServerOptions): Server {
  const server = new Server(SERVER_INFO, {
    jsonSchemaValidator: sharedValidator,
    capabilities: {
      tools: { listChanged: false },
      resources: { listChanged: false, subscribe: false },
      // A call that makes a proposal may run as a task (MCP 2025-11-25): lib/mcp-server/tasks.ts.
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    },
    ...(options.instructions ? { instructions: options.instructions } : {}),
  });
  if (!run) return server;
  const guard = <Args extends unknown[], Result>(handler: (...args: Args) => Promise<Result>) =>
    withoutLeaks(options.requestId, handler);
  server.setRequestHandler(
    ListToolsRequestSchema,
    guard(async () => ({ tools: await listRunTools(run) })),
  );
  server.setRequestHandler(
    CallToolRequestSchema,
    guard(async (request, extra) => {
      const progressToken = request.params._meta?.progressToken;
      let ticks = 0;
      const timer =
        progressToken === undefined
          ? null
          : setInterval(() => {
              ticks += 1;
              const notification: ServerNotification = {
                method: "notifications/progress",
                params: {
                  progressToken,
                  progress: ticks,
                  message: `${request.params.name} is still running (${ticks} s).`,
                },
              };
              void extra.sendNotification(notification).catch(() => undefined);
            }, PROGRESS_INTERVAL_MS);
      const tracked = trackMcpCall(run.id, extra.requestId);
      try {
        if (request.params.task)
          return await inMcpServerSpan("tools/call", request.params.name, request.params._meta, () =>
            callRunToolAsTask(run, request.params.name, request.params.arguments, {
              consoleOrigin: options.consoleOrigin,
              signal: tracked.signal,
            }),
          );
        return await inMcpServerSpan("tools/call", request.params.name, request.params._meta, () =>
          callRunTool(run, request.params.name, request.params.arguments, {
            consoleOrigin: options.consoleOrigin,
            signal: tracked.signal,
            urlElicitation: options.urlElicitation ?? false,
          }),
        );
      } finally {
        tracked.done();
        if (timer) clearInterval(timer);
      }
    }),
  );
  const taskContext = { consoleOrigin: options.consoleOrigin, signal: options.signal };
  server.setRequestHandler(
    GetTaskRequestSchema,
    guard(async (request) => getTask(run, request.params.taskId, taskContext)),
  );
  server.setRequestHandler(
    GetTaskPayloadRequestSchema,
    guard(async (request) => taskResult(run, request.params.taskId, taskContext)),
  );
  server.setRequestHandler(
    ListTasksRequestSchema,
    guard(async (request) => listTasks(run, request.params?.cursor, taskContext)),
  );
  server.setRequestHandler(
    CancelTaskRequestSchema,
    guard(async (request) => cancelTask(run, request.params.taskId, taskContext)),
  );
  server.setRequestHandler(
    ListResourcesRequestSchema,
    guard(async (request) => listRunResources(run, request.params?.cursor)),
  );
  // Documents are listed one by one: there is no uri template to fill.
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [] }));
  server.setRequestHandler(
    ReadResourceRequestSchema,
    guard(async (request, extra) => readRunResource(run, request.params.uri, extra.signal)),
  );
  // The cancelled call was asked on another request, so another SDK server holds it: reach it through this instance's table.
  server.setNotificationHandler(CancelledNotificationSchema, async (notification) => {
    const { requestId } = notification.params;
    if (requestId !== undefined) cancelMcpCall(run.id, requestId);
  });
  return server;
}
