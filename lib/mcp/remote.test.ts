import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCrm, type TestCrm } from "@/connectors/acme-crm/test-helpers";
import { listRemoteTools, McpFailure } from "./remote";

// Guichet's MCP client against the real reference server, and against peers
// that are not MCP servers at all. Loopback is allowed explicitly here, as the
// development setup does.

/** CRM Acme and the test peers are admin-chosen servers on loopback: allowlisted by origin, as an operator would. */
const allow = (url: string) => ({ privateOrigins: [new URL(url).origin] });
let crm: TestCrm;
const peers: http.Server[] = [];

async function peer(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  peers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

async function failure(promise: Promise<unknown>): Promise<McpFailure> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpFailure);
  return error as McpFailure;
}

beforeAll(async () => {
  crm = await startTestCrm({ token: "crm-token-for-tests" });
});
afterAll(async () => {
  for (const server of peers) {
    server.closeAllConnections();
    server.close();
  }
  await crm?.close();
});

describe("listRemoteTools", () => {
  it("lists CRM Acme's tools with schemas and annotations over Streamable HTTP", async () => {
    const tools = await listRemoteTools(
      { url: crm.crm.url, token: "crm-token-for-tests" },
      { policy: allow(crm.crm.url) },
    );
    expect(tools.map((t) => t.name)).toEqual([
      "get_customer",
      "list_orders",
      "preview_address_change",
      "commit_address_change",
      "get_operation_status",
      "send_email",
      "refund_payment",
      "suspend_invoice_delivery",
      "suspend_all_invoice_delivery",
      "get_job_status",
      "cancel_job",
    ]);
    const commit = tools.find((t) => t.name === "commit_address_change")!;
    expect(commit.inputSchema).toMatchObject({
      type: "object",
      additionalProperties: false,
      required: expect.arrayContaining(["expected_version", "idempotency_key"]),
    });
    expect(commit.outputSchema).toMatchObject({ type: "object" });
    expect(commit.annotations).toMatchObject({ readOnlyHint: false });
  });

  it("says unauthorized when the token is missing or wrong", async () => {
    expect(
      (await failure(listRemoteTools({ url: crm.crm.url, token: null }, { policy: allow(crm.crm.url) }))).kind,
    ).toBe("unauthorized");
    expect(
      (await failure(listRemoteTools({ url: crm.crm.url, token: "wrong" }, { policy: allow(crm.crm.url) }))).kind,
    ).toBe("unauthorized");
  });

  it("refuses loopback unless the operator allowlisted its origin, and metadata addresses always", async () => {
    expect((await failure(listRemoteTools({ url: crm.crm.url, token: null }, { policy: {} }))).kind).toBe(
      "url_not_allowed",
    );
    const otherPort = {
      privateOrigins: [new URL(crm.crm.url).origin.replace(/:(\d+)$/, (_m, port: string) => `:${Number(port) + 1}`)],
    };
    expect((await failure(listRemoteTools({ url: crm.crm.url, token: null }, { policy: otherPort }))).kind).toBe(
      "url_not_allowed",
    );
    const metadata = await failure(
      listRemoteTools(
        { url: "http://169.254.169.254/mcp", token: null },
        { policy: { privateOrigins: ["http://169.254.169.254"] } },
      ),
    );
    expect(metadata.kind).toBe("url_not_allowed");
  });

  it("says unreachable for a closed port", async () => {
    const url = await peer(() => undefined);
    peers.pop()!.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect((await failure(listRemoteTools({ url, token: null }, { policy: allow(url) }))).kind).toBe("unreachable");
  });

  it("says timeout when the server never answers", async () => {
    const url = await peer(() => undefined);
    const error = await failure(listRemoteTools({ url, token: null }, { policy: allow(url), timeoutMs: 300 }));
    expect(error.kind).toBe("timeout");
  });

  it.each([
    ["JSON that is not JSON-RPC", "application/json", '{"hello":"world"}'],
    ["an HTML page", "text/html", "<html><body>Welcome</body></html>"],
    ["broken JSON", "application/json", '{"jsonrpc":"2.0",'],
  ])("says protocol error for %s", async (_label, type, body) => {
    const url = await peer((_req, res) => {
      res.writeHead(200, { "content-type": type });
      res.end(body);
    });
    expect((await failure(listRemoteTools({ url, token: null }, { policy: allow(url) }))).kind).toBe("protocol");
  });
});
