import { afterEach, describe, expect, it, vi } from "vitest";

// Each case loads a fresh copy of the module with NEXTAUTH_URL as a deployment sets it.
async function withConsoleUrl(url: string | undefined) {
  vi.resetModules();
  vi.stubEnv("NEXTAUTH_URL", url);
  return import("./console-origin");
}

afterEach(() => vi.unstubAllEnvs());

describe("isConsoleOrigin", () => {
  it("accepts the configured console URL, whatever host the request reached", async () => {
    const { isConsoleOrigin } = await withConsoleUrl("https://guichet.example.com/");
    expect(isConsoleOrigin("https://guichet.example.com", "10.0.0.5:3000")).toBe(true);
    expect(isConsoleOrigin("http://guichet.example.com", "guichet.example.com")).toBe(false);
    expect(isConsoleOrigin("https://guichet.example.com:8443", "guichet.example.com:8443")).toBe(false);
  });

  it("accepts another loopback name of the very host and port the request reached (localhost vs 127.0.0.1)", async () => {
    const { isConsoleOrigin } = await withConsoleUrl("http://localhost:3000");
    expect(isConsoleOrigin("http://localhost:3000", "127.0.0.1:3000")).toBe(true);
    expect(isConsoleOrigin("http://127.0.0.1:3000", "127.0.0.1:3000")).toBe(true);
    expect(isConsoleOrigin("http://[::1]:3000", "[::1]:3000")).toBe(true);
    // Another port of this machine is another program.
    expect(isConsoleOrigin("http://127.0.0.1:4000", "127.0.0.1:3000")).toBe(false);
  });

  it("refuses a DNS-rebinding page: its own name, though the request reached that name", async () => {
    for (const configured of ["http://localhost:3000", undefined]) {
      const { isConsoleOrigin } = await withConsoleUrl(configured);
      expect(isConsoleOrigin("http://attacker.example:3000", "attacker.example:3000")).toBe(false);
    }
  });

  it("without a configured console URL, trusts only loopback names of the request's host", async () => {
    const { isConsoleOrigin } = await withConsoleUrl(undefined);
    expect(isConsoleOrigin("http://127.0.0.1:3000", "127.0.0.1:3000")).toBe(true);
    expect(isConsoleOrigin("http://guichet.lan:3000", "guichet.lan:3000")).toBe(false);
  });

  it.each([null, undefined, "", "null", "garbage", "file:///etc/passwd", "javascript:alert(1)", "data:text/html,x"])(
    "refuses an unreadable or non-web origin %j",
    async (origin) => {
      const { isConsoleOrigin } = await withConsoleUrl("http://localhost:3000");
      expect(isConsoleOrigin(origin, "localhost:3000")).toBe(false);
    },
  );
});

describe("requestConsoleOrigin", () => {
  it("gives the origin the browser is on when it is the console's, from the Host header", async () => {
    const { requestConsoleOrigin } = await withConsoleUrl("http://localhost:3000");
    const at = (host: string) => new Request("http://127.0.0.1:3000/api/auth/signout", { headers: { host } });
    expect(requestConsoleOrigin(at("127.0.0.1:3000"))).toBe("http://127.0.0.1:3000");
    expect(requestConsoleOrigin(at("localhost:3000"))).toBe("http://localhost:3000");
    expect(requestConsoleOrigin(at("attacker.example:3000"))).toBeNull();
    expect(requestConsoleOrigin(at("127.0.0.1:3000/evil"))).toBeNull();
  });
});
