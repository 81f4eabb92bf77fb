import "server-only";
import http from "node:http";
import { measureDispatchOverhead, type OverheadFigures } from "./dispatch-overhead";

// The dispatcher's overhead with OpenTelemetry tracing off, then on, exporting
// over OTLP/HTTP to a receiver on loopback (it reads each export and answers
// 200, as a collector would). The difference of the two overheads is what
// tracing costs a tool call: its spans (execute_tool, and tools/call for an MCP
// tool), their attributes and the batch export, which runs in this process too.

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
    const off = await measureDispatchOverhead(options);
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
    process.env.OTEL_SERVICE_NAME = "guichet-bench";
    const { startTracing } = await import("@/lib/observability/start-tracing");
    const stop = startTracing();
    let on: OverheadFigures[];
    try {
      on = await measureDispatchOverhead(options);
    } finally {
      await stop();
      delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    }
    const figures = off.map((f) => {
      const traced = on.find((g) => g.tool === f.tool)!;
      return {
        tool: f.tool,
        off_p50_ms: f.overhead_p50_ms,
        on_p50_ms: traced.overhead_p50_ms,
        added_p50_ms: Math.round((traced.overhead_p50_ms - f.overhead_p50_ms) * 1000) / 1000,
      };
    });
    return { figures, spans };
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
}
