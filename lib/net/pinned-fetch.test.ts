import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pinnedFetch } from "./pinned-fetch";
import { UrlNotAllowedError } from "./ssrf";

// The fetch handed to the MCP client: same answers as fetch for what is
// allowed, a refusal before any connection for what is not.

let server: http.Server;
let port: number;
const seen: { method?: string; body: string; auth?: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      seen.push({ method: req.method, body, auth: req.headers.authorization });
      if (req.url === "/redirect") {
        res.writeHead(302, { location: "http://169.254.169.254/latest" });
        res.end();
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "x-multi": ["a", "b"] });
      res.write("event: message\ndata: one\n\n");
      res.end("event: message\ndata: two\n\n");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => server.close());

describe("pinnedFetch", () => {
  it("sends method, headers and body, and streams the answer back", async () => {
    const fetchLike = pinnedFetch({ privateOrigins: [`http://localhost:${port}`] });
    const response = await fetchLike(`http://localhost:${port}/mcp`, {
      method: "POST",
      headers: { authorization: "Bearer t" },
      body: '{"jsonrpc":"2.0"}',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("x-multi")).toBe("a, b");
    expect(await response.text()).toBe("event: message\ndata: one\n\nevent: message\ndata: two\n\n");
    expect(seen.at(-1)).toEqual({ method: "POST", body: '{"jsonrpc":"2.0"}', auth: "Bearer t" });
  });

  it("refuses loopback (by name too) unless its origin is allowlisted, before connecting", async () => {
    const before = seen.length;
    for (const url of [
      `http://localhost:${port}/mcp`,
      `http://127.0.0.1:${port}/mcp`,
      `http://[::ffff:127.0.0.1]:${port}/mcp`,
    ]) {
      await expect(pinnedFetch({})(url, { method: "POST", body: "{}" })).rejects.toBeInstanceOf(UrlNotAllowedError);
    }
    expect(seen.length).toBe(before);
  });

  it("hands redirects back instead of following them", async () => {
    const response = await pinnedFetch({ privateOrigins: [`http://127.0.0.1:${port}`] })(
      `http://127.0.0.1:${port}/redirect`,
    );
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("http://169.254.169.254/latest");
  });
});
