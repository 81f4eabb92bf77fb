import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { safeFetch, SafeFetchError } from "./safe-fetch";
import { UrlNotAllowedError } from "./ssrf";
import { startTestServer, type TestServer } from "@/tests/support/http-server";

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: Parameters<typeof startTestServer>[0]): Promise<string> {
  const server = await startTestServer(handler);
  servers.push(server);
  return server.origin;
}

/** The policy of an admin-chosen destination whose origin the operator allowlisted. */
const allow = (url: string) => ({ privateOrigins: [new URL(url).origin] });

describe("safeFetch", () => {
  it("refuses loopback unless its origin is allowlisted, before connecting", async () => {
    let hits = 0;
    const origin = await serve((_req, res) => {
      hits++;
      res.end("hello");
    });
    await expect(safeFetch(`${origin}/`)).rejects.toMatchObject({ name: "UrlNotAllowedError", reason: "loopback" });
    expect(hits).toBe(0);
    const ok = await safeFetch(`${origin}/`, allow(origin));
    expect(ok).toMatchObject({ status: 200, url: `${origin}/`, truncated: false });
    expect(ok.body.toString()).toBe("hello");
  });

  it("connects by host name through the checked addresses", async () => {
    const origin = await serve((req, res) => res.end(`host ${req.headers.host}`));
    const viaName = origin.replace("127.0.0.1", "localhost");
    const res = await safeFetch(`${viaName}/`, allow(viaName));
    expect(res.body.toString()).toBe(`host ${new URL(viaName).host}`);
  });

  it("follows relative redirects and reports the final URL", async () => {
    const origin = await serve((req, res) => {
      if (req.url === "/a") res.writeHead(302, { location: "/b?x=1" }).end();
      else res.writeHead(200, { "content-type": "text/plain" }).end(`at ${req.url}`);
    });
    const res = await safeFetch(`${origin}/a`, allow(origin));
    expect(res.url).toBe(`${origin}/b?x=1`);
    expect(res.contentType).toBe("text/plain");
    expect(res.body.toString()).toBe("at /b?x=1");
  });

  it("re-checks every hop: a redirect to the metadata address is refused", async () => {
    const origin = await serve((_req, res) => {
      res.writeHead(301, { location: "http://169.254.169.254/latest/meta-data/" }).end();
    });
    const err = await safeFetch(`${origin}/`, { privateOrigins: [origin, "http://169.254.169.254"] }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UrlNotAllowedError);
    expect((err as UrlNotAllowedError).reason).toBe("metadata");
  });

  it("stops after maxRedirects", async () => {
    let hits = 0;
    const origin = await serve((_req, res) => {
      hits++;
      res.writeHead(302, { location: "/again" }).end();
    });
    await expect(safeFetch(`${origin}/`, { ...allow(origin), maxRedirects: 3 })).rejects.toMatchObject({
      kind: "too_many_redirects",
    });
    expect(hits).toBe(4);
  });

  it("drops credentials when a redirect leaves the origin", async () => {
    const seen: Record<string, string | undefined> = {};
    const target = await serve((req, res) => {
      seen.authorization = req.headers.authorization;
      seen.custom = req.headers["x-custom"] as string | undefined;
      res.end("ok");
    });
    const origin = await serve((_req, res) => res.writeHead(307, { location: `${target}/landing` }).end());
    await safeFetch(`${origin}/`, {
      privateOrigins: [origin, target],
      headers: { Authorization: "Bearer secret", "X-Custom": "kept" },
    });
    expect(seen).toEqual({ authorization: undefined, custom: "kept" });
  });

  it("caps the decoded body, so a compressed bomb is cut off", async () => {
    const origin = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
      res.end(gzipSync(Buffer.alloc(1_000_000, "a")));
    });
    const res = await safeFetch(`${origin}/`, { ...allow(origin), maxBytes: 1000 });
    expect(res.truncated).toBe(true);
    expect(res.body.length).toBe(1000);
    expect(res.body.toString()).toBe("a".repeat(1000));
  });

  it("times out on a server that never answers", async () => {
    const origin = await serve(() => {
      /* never answers */
    });
    const err = await safeFetch(`${origin}/`, { ...allow(origin), timeoutMs: 100 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SafeFetchError);
    expect((err as SafeFetchError).kind).toBe("timeout");
  });

  it("times out on a body that stops midway", async () => {
    const origin = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("partial");
    });
    await expect(safeFetch(`${origin}/`, { ...allow(origin), timeoutMs: 150 })).rejects.toMatchObject({
      kind: "timeout",
    });
  });

  it("reports a cancellation by the caller as aborted", async () => {
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    const origin = await serve(() => arrived());
    const controller = new AbortController();
    const pending = safeFetch(`${origin}/`, { ...allow(origin), signal: controller.signal });
    await requestArrived;
    controller.abort();
    await expect(pending).rejects.toMatchObject({ kind: "aborted" });
  });

  it("reports a refused connection as a network error", async () => {
    const origin = await serve((_req, res) => res.end());
    await servers.pop()!.close();
    await expect(safeFetch(`${origin}/`, allow(origin))).rejects.toMatchObject({ kind: "network" });
  });
});
