import { spawn } from "node:child_process";
import type { TestStack } from "../test-stack";
import type { BenchRequest } from "./main";
import { freePort } from "@/tests/api/server";

// The two references the benchmark states Guichet against:
// - the physical ceiling: a plain `node:http` server, in its own process like
//   Guichet's, answering the same bytes as the bare Next handler (`?bytes=N`);
// - CRM Acme called directly, for the latency Guichet adds to an MCP read at a
//   fixed offered rate below saturation (achieved rate, p50/p99 and errors
//   reported together, as gateways report theirs).

const RAW_SERVER = `
const http = require("node:http");
const bodies = new Map();
http.createServer((req, res) => {
  const bytes = Math.min(Math.max(Number(new URL(req.url, "http://x").searchParams.get("bytes") ?? 100), 20), 1000000);
  let body = bodies.get(bytes);
  if (!body) bodies.set(bytes, (body = Buffer.from(JSON.stringify({ data: "x".repeat(bytes - 11) }))));
  res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.length });
  res.end(body);
}).listen(Number(process.env.RAW_PORT), "127.0.0.1", () => console.log("ready"));
`;

/** A raw node:http server returning N bytes of JSON, in a process of its own. */
export async function startRawServer(): Promise<{ baseUrl: string; stop(): void }> {
  const port = await freePort();
  const child = spawn(process.execPath, ["-e", RAW_SERVER], {
    env: { ...process.env, RAW_PORT: String(port) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`raw server exited (${code})`)));
  });
  return { baseUrl: `http://127.0.0.1:${port}`, stop: () => void child.kill("SIGTERM") };
}

/** CRM Acme's get_customer as one stateless Streamable HTTP request, the way a gateway forwards it. */
export function crmDirectRequest(stack: TestStack): { baseUrl: string; request: BenchRequest } {
  const url = new URL(stack.crmUrl);
  return {
    baseUrl: url.origin,
    request: {
      method: "POST",
      path: url.pathname,
      headers: { accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "get_customer", arguments: { customer_id: "C-1842" } },
      }),
    },
  };
}
