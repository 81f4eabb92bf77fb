import "server-only";
import { connectBenchCrm } from "./crm";
import { latency, type LatencyFigures } from "./stats";
import { performance } from "node:perf_hooks";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { privateOriginsFor } from "@/lib/net/origin-grants";
import { builtinExecutor, type ExecutionContext } from "@/lib/executors";
import { callMcpTool, closeMcpClients } from "@/lib/executors/mcp";
import { newId } from "@/lib/ids";
import { openerOf } from "@/lib/runs/driver";
import { createRun } from "@/lib/runs/service";
import { dispatchToolCall } from "@/lib/proposals/dispatch";
import { searchSettings } from "@/lib/dispatch/availability";
import { untraced } from "@/lib/observability/tracing";

// The dispatcher's own cost, in process: N calls of an executor made directly
// (what a tool costs anyway) against N calls of the same tool through
// dispatchToolCall (run state, limits, lookup, both validations, result view,
// step and telemetry writes). Same run, same arguments, interleaved in one
// loop so both see the same machine. The figure is the difference.
//
// Needs a migrated database with the reference data (plans) in DATABASE_URL,
// and tool-call limits above N (GUICHET_RUN_CALLS_PER_MINUTE and
// GUICHET_ORG_CALLS_PER_MINUTE) — a refused call throws rather than skew the
// figures. Creates its own organization and removes it afterwards.

export interface OverheadFigures {
  tool: string;
  iterations: number;
  direct: LatencyFigures;
  dispatched: LatencyFigures;
  /** Median dispatched minus median direct. */
  overhead_p50_ms: number;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function compare(
  tool: string,
  iterations: number,
  direct: () => Promise<unknown>,
  dispatched: () => Promise<{ ok: boolean }>,
): Promise<OverheadFigures> {
  // Warm-up: compiled schemas, pooled MCP connection, prepared statements.
  for (let i = 0; i < 5; i++) {
    await direct();
    await dispatched();
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < iterations; i++) {
    a.push(await timed(direct));
    b.push(
      await timed(async () => {
        const envelope = await dispatched();
        if (!envelope.ok)
          throw new Error(`${tool}: the dispatcher refused a benchmark call: ${JSON.stringify(envelope)}`);
      }),
    );
  }
  const direct_ = latency(a, 3);
  const dispatched_ = latency(b, 3);
  return {
    tool,
    iterations,
    direct: direct_,
    dispatched: dispatched_,
    overhead_p50_ms: Math.round((dispatched_.p50_ms - direct_.p50_ms) * 1000) / 1000,
  };
}

/** Times `calculate` (and `get_customer` through MCP when `crmUrl` is given) called directly and through the dispatcher. */
export async function measureDispatchOverhead(
  options: {
    iterations?: number;
    crmUrl?: string;
    /** "untraced": the reference is the same dispatched call with tracing off, not the executor alone. */
    versus?: "direct" | "untraced";
  } = {},
): Promise<OverheadFigures[]> {
  const iterations = options.iterations ?? 200;
  // Either the executor alone, or the same dispatched call with tracing off (alternating with the traced one).
  const reference = (direct: () => Promise<unknown>, dispatched: () => Promise<unknown>) =>
    options.versus === "untraced" ? () => untraced(dispatched) : direct;
  const organizationId = newId("org");
  await db.organization.create({
    data: { id: organizationId, slug: `bench-${organizationId.slice(-10)}`, name: "Bench", planId: "pro" },
  });
  let runId = "";
  try {
    let mcpKey: string | null = null;
    if (options.crmUrl) {
      mcpKey = (await connectBenchCrm(organizationId, options.crmUrl, ["get_customer"]))("get_customer");
    }
    const agent = await db.agent.create({
      data: {
        id: newId("agt"),
        organizationId,
        name: "Bench",
        temperatureCenti: 30,
        tools: mcpKey ? [mcpKey] : [],
        clientTools: [],
      },
    });
    const { run } = await createRun(
      { kind: "apiKey", organizationId, apiKeyId: "key_bench", scopes: ["runs:write"] },
      { agent: agent.id, capabilities: "read", debug: false },
    );
    runId = run.id;
    const driver = openerOf(run);
    const privateOrigins = await privateOriginsFor(organizationId);
    const context: ExecutionContext = {
      signal: new AbortController().signal,
      run: { organizationId, runId: run.id, agentId: agent.id, fileIds: [], memberId: null },
      dataDir: env.dataDir,
      web: {},
      search: searchSettings(privateOrigins),
      privateOrigins,
    };
    const results: OverheadFigures[] = [];
    const calculate = builtinExecutor("calculate")!;
    const expression = { expression: "round((1250 * 1.2) / 7, 2) + 2 ^ 10" };
    results.push(
      await compare(
        "calculate",
        iterations,
        reference(
          () => calculate.execute(expression, { ...context, signal: new AbortController().signal }),
          () => dispatchToolCall({ organizationId, runId: run.id, driver, tool: "calculate", arguments: expression }),
        ),
        () => dispatchToolCall({ organizationId, runId: run.id, driver, tool: "calculate", arguments: expression }),
      ),
    );
    if (mcpKey && options.crmUrl) {
      const target = {
        url: options.crmUrl,
        token: null,
        tool: "get_customer",
        net: { privateOrigins: [new URL(options.crmUrl).origin] },
        scope: { organizationId, serverId: "bench-direct" },
      };
      const args = { customer_id: "C-1842" };
      results.push(
        await compare(
          "get_customer (MCP)",
          iterations,
          reference(
            () => callMcpTool(target, args, { signal: new AbortController().signal, timeoutMs: 10_000 }),
            () => dispatchToolCall({ organizationId, runId: run.id, driver, tool: mcpKey!, arguments: args }),
          ),
          () => dispatchToolCall({ organizationId, runId: run.id, driver, tool: mcpKey!, arguments: args }),
        ),
      );
    }
    return results;
  } finally {
    await closeMcpClients();
    await db.telemetryCounter.deleteMany({ where: { organizationId } });
    await db.toolContract.deleteMany({ where: { organizationId } });
    await db.rateLimitWindow.deleteMany({
      where: { OR: [{ key: { contains: organizationId } }, ...(runId ? [{ key: { contains: runId } }] : [])] },
    });
    await db.organization.delete({ where: { id: organizationId } });
  }
}
