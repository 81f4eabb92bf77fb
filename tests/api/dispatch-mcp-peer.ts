import http from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";

// A small real MCP server that misbehaves on purpose, for what CRM Acme does
// not do: a result with fields its schema does not declare (a secret, an
// internal score, at the top level and nested), a result that breaks its schema, a tool without an output
// schema, a read that fails transiently before it succeeds, and a refusal told in a text block only.

const tools: Tool[] = [
  {
    name: "get_profile",
    description: "Read a profile.",
    annotations: { readOnlyHint: true },
    inputSchema: { type: "object", properties: { user_id: { type: "string", minLength: 1 } }, required: ["user_id"] },
    // Open on purpose: the server may add fields; the result view keeps only the declared ones.
    outputSchema: {
      type: "object",
      properties: { name: { type: "string" }, plan: { type: "string" } },
      required: ["name", "plan"],
    },
  },
  {
    name: "get_account",
    description: "Read an account with its owner and contacts.",
    annotations: { readOnlyHint: true },
    inputSchema: { type: "object", properties: {} },
    // Nested on purpose: the server adds fields inside objects and inside the objects of an array.
    outputSchema: {
      type: "object",
      properties: {
        owner: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        contacts: {
          type: "array",
          items: { type: "object", properties: { kind: { type: "string" } }, required: ["kind"] },
        },
      },
      required: ["owner", "contacts"],
    },
  },
  {
    name: "count_things",
    description: "Count things.",
    annotations: { readOnlyHint: true },
    inputSchema: { type: "object", properties: {} },
    outputSchema: { type: "object", properties: { count: { type: "integer" } }, required: ["count"] },
  },
  {
    name: "say_hello",
    description: "Say hello.",
    annotations: { readOnlyHint: true },
    inputSchema: { type: "object", properties: { name: { type: "string" } } },
  },
  {
    name: "find_order",
    description: "Find an order (refuses in plain text, as many servers do).",
    annotations: { readOnlyHint: true },
    inputSchema: { type: "object", properties: { order_id: { type: "string" } } },
  },
  {
    name: "flaky_read",
    description: "Fails once, then answers.",
    annotations: { readOnlyHint: true },
    inputSchema: { type: "object", properties: {} },
    outputSchema: { type: "object", properties: { attempt: { type: "integer" } }, required: ["attempt"] },
  },
];

export interface McpPeer {
  url: string;
  calls: Record<string, number>;
  close(): Promise<void>;
}

/** `extraTools`: more tools to list, for a suite that needs a shape of its own (they answer like an unknown tool). */
export async function startMcpPeer(options: { extraTools?: Tool[] } = {}): Promise<McpPeer> {
  const listed: Tool[] = [...tools, ...(options.extraTools ?? [])];
  const calls: Record<string, number> = {};
  function answer(name: string): CallToolResult {
    calls[name] = (calls[name] ?? 0) + 1;
    switch (name) {
      case "get_profile":
        return {
          content: [],
          structuredContent: { name: "Camille", plan: "pro", api_token: "tok_live_SECRET", internal_score: 42 },
        };
      case "get_account":
        return {
          content: [],
          structuredContent: {
            owner: { name: "Camille", password_hash: "bcrypt$OWNER_SECRET" },
            contacts: [
              { kind: "email", value: "camille@private.test" },
              { kind: "phone", value: "+33 6 00 00 00 00", risk_flag: true },
            ],
          },
        };
      case "count_things":
        return { content: [], structuredContent: { count: "many", leaked: "internal" } };
      case "say_hello":
        return { content: [{ type: "text", text: "Bonjour Camille" }] };
      case "find_order":
        return { isError: true, content: [{ type: "text", text: "Order 42 is archived; ask support." }] };
      default:
        if (calls[name] % 2 === 1)
          return {
            isError: true,
            content: [{ type: "text", text: "busy" }],
            structuredContent: { error: { code: "BUSY", message: "Try again.", retryable: true } },
          };
        return { content: [], structuredContent: { attempt: calls[name] } };
    }
  }
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const mcp = new Server({ name: "peer", version: "1.0.0" }, { capabilities: { tools: {} } });
    mcp.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }));
    mcp.setRequestHandler(CallToolRequestSchema, async (request) => answer(request.params.name));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString("utf8") || "null"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://peer.test:${port}/mcp`, // a public-looking name for 127.0.0.1 (test hosts)
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
