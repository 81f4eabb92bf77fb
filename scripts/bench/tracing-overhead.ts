import "server-only";
import http from "node:http";
import { measureDispatchOverhead, type OverheadFigures } from "./dispatch-overhead";

// What OpenTelemetry tracing adds to a dispatched tool call: the same call with
// tracing off and on, alternately in one loop (so both see the same machine),
// exporting over OTLP/HTTP to a receiver on loopback that reads each export and
// answers 200, as a collector would. The difference covers the spans
// (execute_tool, and tools/call for an MCP tool), their attributes, the trace
// headers sent upstream and the batch export, which runs in this process too.

export interface TracingOverhead {
  tool: string;
  off_p50_ms: number;
  on_p50_ms: number;
  added_p50_ms: number;
}

export async function measureTracingOverhead(options: {
  iterations: number;
  crmUrl?: string;
}): Promise<{ figures: TracingOverhead[]; spans: number }> {
  let spans = 0;
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      spans += (
        Buffer.concat(chunks)
          .toString("utf8")
          .match(/"spanId"/g) ?? []
      ).length;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
    process.env.OTEL_SERVICE_NAME = "guichet-bench";
    const { startTracing } = await import("@/lib/observability/start-tracing");
    const stop = startTracing();
    let paired: OverheadFigures[];
    try {
      paired = await measureDispatchOverhead({ ...options, versus: "untraced" });
    } finally {
      await stop();
      delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    }
    const figures = paired.map((f) => ({
      tool: f.tool,
      off_p50_ms: f.direct.p50_ms,
      on_p50_ms: f.dispatched.p50_ms,
      added_p50_ms: f.overhead_p50_ms,
    }));
    return { figures, spans };
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
}
