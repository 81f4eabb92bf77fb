import type http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@/tests/support/http-server";
import { ToolError } from "@/lib/executors/errors";
import { webFetch, type WebFetchContext } from "./web-fetch";

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

// web_fetch reaches public addresses only. The test servers live on loopback, so
// they are reached through a name of the reserved .test domain that the
// resolver's test hook maps to 127.0.0.1 and treats as public.
process.env.GUICHET_TEST_HOSTS = "*.test=127.0.0.1";

/** A test server on loopback: its public-looking origin (http://page.test:PORT) and its real one. */
async function serveBoth(handler: http.RequestListener): Promise<{ publicOrigin: string; loopbackOrigin: string }> {
  const server = await startTestServer(handler);
  servers.push(server);
  return { publicOrigin: server.origin.replace("127.0.0.1", "page.test"), loopbackOrigin: server.origin };
}

async function serve(handler: http.RequestListener): Promise<string> {
  return (await serveBoth(handler)).publicOrigin;
}

const ctx: WebFetchContext = { signal: new AbortController().signal, timeoutMs: 2000 };

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof ToolError)) throw new Error(`expected a ToolError, got ${String(err)}`);
  return err;
}

const page = `<!doctype html><html><head><title>Tarifs &amp; offres</title>
<script>window.secret = "do not leak"</script><style>.x{}</style></head>
<body><h1>Nos offres</h1><p>Le plan <strong>Pro</strong> coûte 20&nbsp;€.</p></body></html>`;

describe("web_fetch", () => {
  it("returns the readable text and title of an HTML page, marked untrusted", async () => {
    const origin = await serve((_req, res) =>
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page),
    );
    const out = await webFetch({ url: `${origin}/tarifs` }, ctx);
    expect(out).toEqual({
      url: `${origin}/tarifs`,
      final_url: `${origin}/tarifs`,
      status: 200,
      content_type: "text/html",
      title: "Tarifs & offres",
      text: "Nos offres\nLe plan Pro coûte 20 €.",
      truncated: false,
      untrusted: true,
    });
    expect(out.text).not.toMatch(/[<>]|secret/);
  });

  it("decodes the declared charset", async () => {
    const origin = await serve((_req, res) =>
      res.writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" }).end(Buffer.from("café", "latin1")),
    );
    expect((await webFetch({ url: origin }, ctx)).text).toBe("café");
  });

  it("returns plain text, Markdown and JSON as they are", async () => {
    const origin = await serve((req, res) => {
      const type = req.url === "/md" ? "text/markdown" : "application/json";
      res.writeHead(200, { "content-type": type }).end(req.url === "/md" ? "# Titre\n\n    code" : '{"a": [1, 2]}');
    });
    await expect(webFetch({ url: `${origin}/md` }, ctx)).resolves.toMatchObject({
      text: "# Titre\n\n    code",
      title: null,
    });
    await expect(webFetch({ url: `${origin}/json` }, ctx)).resolves.toMatchObject({
      text: '{"a": [1, 2]}',
      content_type: "application/json",
    });
  });

  it("truncates the text to max_chars", async () => {
    const origin = await serve((_req, res) =>
      res.writeHead(200, { "content-type": "text/plain" }).end("x".repeat(5000)),
    );
    const out = await webFetch({ url: origin, max_chars: 100 }, ctx);
    expect(out.text).toBe("x".repeat(100));
    expect(out.truncated).toBe(true);
  });

  it("stops downloading past maxBytes and says so", async () => {
    const origin = await serve((_req, res) =>
      res.writeHead(200, { "content-type": "text/plain" }).end("y".repeat(100_000)),
    );
    const out = await webFetch({ url: origin }, { ...ctx, maxBytes: 1000 });
    expect(out.text).toBe("y".repeat(1000));
    expect(out.truncated).toBe(true);
  });

  it("follows a redirect and reports the final URL", async () => {
    const origin = await serve((req, res) => {
      if (req.url === "/old") res.writeHead(301, { location: "/new" }).end();
      else res.writeHead(200, { "content-type": "text/plain" }).end("moved here");
    });
    await expect(webFetch({ url: `${origin}/old` }, ctx)).resolves.toMatchObject({
      url: `${origin}/old`,
      final_url: `${origin}/new`,
      text: "moved here",
    });
  });

  it("refuses a redirect to the cloud metadata address", async () => {
    const origin = await serve((_req, res) =>
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end(),
    );
    const err = await failure(webFetch({ url: origin }, ctx));
    expect(err).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/url", retryable: false });
    expect(err.message).toMatch(/reason: metadata/);
  });

  it("refuses loopback URLs, whatever their spelling, before connecting", async () => {
    let hits = 0;
    const { loopbackOrigin } = await serveBoth((_req, res) => {
      hits++;
      res.end();
    });
    for (const url of [
      loopbackOrigin,
      loopbackOrigin.replace("127.0.0.1", "localhost"),
      loopbackOrigin.replace("127.0.0.1", "[::ffff:127.0.0.1]"),
    ]) {
      const err = await failure(webFetch({ url }, ctx));
      expect(err).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/url" });
      expect(err.message).toMatch(/reason: loopback/);
    }
    expect(hits).toBe(0);
  });

  it("refuses a redirect from a public page to loopback, without reaching it", async () => {
    let reachedLoopback = false;
    const target = await serveBoth((_req, res) => {
      reachedLoopback = true;
      res.end("internal");
    });
    const entry = await serve((_req, res) => res.writeHead(302, { location: `${target.loopbackOrigin}/admin` }).end());
    const err = await failure(webFetch({ url: `${entry}/` }, ctx));
    expect(err).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/url" });
    expect(err.message).toMatch(/reason: loopback/);
    expect(reachedLoopback).toBe(false);
  });

  it("refuses URLs that are not http(s) or that carry credentials", async () => {
    await expect(webFetch({ url: "file:///etc/passwd" }, ctx)).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
      field: "/url",
    });
    await expect(webFetch({ url: "http://user:pw@example.com/" }, ctx)).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
      message: expect.stringMatching(/reason: credentials/),
    });
  });

  it("gives up on a redirect loop", async () => {
    const origin = await serve((_req, res) => res.writeHead(302, { location: "/loop" }).end());
    const err = await failure(webFetch({ url: origin }, ctx));
    expect(err).toMatchObject({ code: "UPSTREAM_ERROR", retryable: false });
    expect(err.message).toMatch(/redirected too many times/);
  });

  it("times out on a server that never answers", async () => {
    const origin = await serve(() => {
      /* never answers */
    });
    await expect(webFetch({ url: origin }, { ...ctx, timeoutMs: 100 })).rejects.toMatchObject({
      code: "TIMEOUT",
      retryable: true,
    });
  });

  it.each([
    [500, true],
    [503, true],
    [429, true],
    [404, false],
    [403, false],
  ])("reports HTTP %i as UPSTREAM_ERROR (retryable: %s)", async (status, retryable) => {
    const origin = await serve((_req, res) =>
      res.writeHead(status, { "content-type": "text/html" }).end("<p>error</p>"),
    );
    const err = await failure(webFetch({ url: origin }, ctx));
    expect(err).toMatchObject({ code: "UPSTREAM_ERROR", retryable });
    expect(err.message).toContain(`HTTP ${status}`);
  });

  it("refuses content it cannot read as text", async () => {
    const origin = await serve((_req, res) =>
      res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([0x89, 0x50])),
    );
    await expect(webFetch({ url: origin }, ctx)).rejects.toMatchObject({
      code: "UPSTREAM_ERROR",
      retryable: false,
      message: expect.stringMatching(/image\/png/),
    });
  });

  it("reports cancellation by the caller", async () => {
    const controller = new AbortController();
    const origin = await serve(() => controller.abort());
    await expect(webFetch({ url: origin }, { ...ctx, signal: controller.signal })).rejects.toMatchObject({
      code: "CANCELLED",
    });
  });
});
