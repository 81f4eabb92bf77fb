import type http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@/tests/support/http-server";
import { webSearch } from "./web-search";

/** The fake backends run on loopback: allowlisted by origin, as an operator allowlists a local SearXNG. */
const allow = (searchUrl: string | null | undefined) =>
  searchUrl ? { privateOrigins: [new URL(searchUrl).origin] } : {};

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: http.RequestListener): Promise<string> {
  const server = await startTestServer(handler);
  servers.push(server);
  return server.origin;
}

const signal = new AbortController().signal;

// A SearXNG-compatible peer: GET /search?q=…&format=json → {results: [...]}.
async function fakeSearxng(results: unknown[], seen: URL[] = []): Promise<string> {
  const origin = await serve((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    seen.push(url);
    if (url.pathname !== "/search" || url.searchParams.get("format") !== "json") return res.writeHead(404).end();
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ query: url.searchParams.get("q"), results }));
  });
  return `${origin}/search`;
}

const hits = Array.from({ length: 8 }, (_, i) => ({
  title: ` Result ${i} `,
  url: `https://example.com/${i}`,
  content: `Snippet ${i}`,
  engine: "duckduckgo",
  score: 1,
}));

describe("web_search", () => {
  it("queries the backend and maps its results, marked untrusted", async () => {
    const seen: URL[] = [];
    const searchUrl = await fakeSearxng(hits, seen);
    const out = await webSearch(
      { query: "tarifs guichet & co", max_results: 2 },
      { signal, searchUrl, ...allow(searchUrl) },
    );
    expect(out).toEqual({
      results: [
        { title: "Result 0", url: "https://example.com/0", snippet: "Snippet 0" },
        { title: "Result 1", url: "https://example.com/1", snippet: "Snippet 1" },
      ],
      untrusted: true,
    });
    expect(seen[0].searchParams.get("q")).toBe("tarifs guichet & co");
  });

  it("returns five results by default", async () => {
    const searchUrl = await fakeSearxng(hits);
    expect((await webSearch({ query: "q" }, { signal, searchUrl, ...allow(searchUrl) })).results).toHaveLength(5);
  });

  it("drops results without an http(s) link and bounds the text", async () => {
    const searchUrl = await fakeSearxng([
      { title: "js", url: "javascript:alert(1)", content: "x" },
      { title: "none", content: "x" },
      "garbage",
      { url: "https://ok.example/", content: "s".repeat(5000), title: 42 },
    ]);
    const out = await webSearch({ query: "q" }, { signal, searchUrl, ...allow(searchUrl) });
    expect(out.results).toEqual([{ title: "", url: "https://ok.example/", snippet: "s".repeat(1000) }]);
  });

  it("is unavailable when no backend is configured", async () => {
    for (const searchUrl of [undefined, null, ""]) {
      await expect(webSearch({ query: "q" }, { signal, searchUrl, ...allow(searchUrl) })).rejects.toMatchObject({
        code: "TOOL_UNAVAILABLE",
        retryable: false,
        message: "No search backend is configured (GUICHET_SEARCH_URL).",
      });
    }
  });

  it("refuses a backend on loopback whose origin the operator did not allowlist, before connecting", async () => {
    const seen: URL[] = [];
    const searchUrl = await fakeSearxng([], seen);
    await expect(webSearch({ query: "q" }, { signal, searchUrl })).rejects.toMatchObject({
      code: "TOOL_UNAVAILABLE",
      message: expect.stringMatching(/loopback/),
    });
    expect(seen).toHaveLength(0);
  });

  it("still refuses a backend on the metadata address", async () => {
    await expect(
      webSearch({ query: "q" }, { signal, searchUrl: "http://169.254.169.254/search" }),
    ).rejects.toMatchObject({ code: "TOOL_UNAVAILABLE", message: expect.stringMatching(/metadata/) });
  });

  it.each([
    [502, true],
    [429, true],
    [400, false],
  ])("reports HTTP %i as UPSTREAM_ERROR (retryable: %s)", async (status, retryable) => {
    const origin = await serve((_req, res) => res.writeHead(status).end());
    await expect(
      webSearch({ query: "q" }, { signal, searchUrl: `${origin}/search`, privateOrigins: [origin] }),
    ).rejects.toMatchObject({
      code: "UPSTREAM_ERROR",
      retryable,
    });
  });

  it("reports an answer that is not a SearXNG result list", async () => {
    const origin = await serve((req, res) =>
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(req.url?.startsWith("/html") ? "<html>" : '{"answers": []}'),
    );
    await expect(
      webSearch({ query: "q" }, { signal, searchUrl: `${origin}/html`, privateOrigins: [origin] }),
    ).rejects.toMatchObject({
      code: "UPSTREAM_ERROR",
      message: expect.stringMatching(/valid JSON/),
    });
    await expect(
      webSearch({ query: "q" }, { signal, searchUrl: `${origin}/json`, privateOrigins: [origin] }),
    ).rejects.toMatchObject({
      code: "UPSTREAM_ERROR",
      message: expect.stringMatching(/results list/),
    });
  });

  it("times out on a backend that never answers", async () => {
    const origin = await serve(() => {
      /* never answers */
    });
    await expect(
      webSearch({ query: "q" }, { signal, searchUrl: origin, privateOrigins: [origin], timeoutMs: 100 }),
    ).rejects.toMatchObject({
      code: "TIMEOUT",
      retryable: true,
    });
  });
});
