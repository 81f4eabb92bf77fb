import { describe, expect, it } from "vitest";
import {
  assertPublicUrl,
  classifyAddress,
  refusalFor,
  testHostAddresses,
  UrlNotAllowedError,
  type UrlPolicy,
} from "./ssrf";

describe("classifyAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["100.64.0.1", "private"],
    ["::ffff:10.0.0.1", "private"],
    ["169.254.169.254", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["::ffff:169.254.169.254", "metadata"],
    ["169.254.1.1", "link_local"],
    ["fe80::1", "link_local"],
    ["0.0.0.0", "reserved"],
    ["::", "reserved"],
    ["255.255.255.255", "reserved"],
    ["224.0.0.1", "reserved"],
    ["ff02::1", "reserved"],
    ["240.0.0.1", "reserved"],
    ["2001:db8::1", "reserved"],
    ["::7f00:1", "reserved"],
    ["64:ff9b::7f00:1", "loopback"],
    ["2002:a00:1::", "private"],
    ["172.32.0.1", "public"],
    ["93.184.216.34", "public"],
    ["::ffff:93.184.216.34", "public"],
    ["2606:4700:4700::1111", "public"],
  ])("%s is %s", (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });

  it("rejects what is not an IP literal", () => {
    expect(() => classifyAddress("example.com")).toThrow(TypeError);
    expect(() => classifyAddress("1.2.3")).toThrow(TypeError);
  });
});

describe("refusalFor", () => {
  it("never lets link-local, metadata or reserved through, even for an allowlisted origin", () => {
    expect(refusalFor("metadata", true)).toBe("metadata");
    expect(refusalFor("link_local", true)).toBe("link_local");
    expect(refusalFor("reserved", true)).toBe("reserved");
    expect(refusalFor("private", true)).toBeNull();
    expect(refusalFor("loopback", true)).toBeNull();
    expect(refusalFor("private", false)).toBe("private");
    expect(refusalFor("loopback", false)).toBe("loopback");
    expect(refusalFor("public", false)).toBeNull();
  });
});

async function refusal(url: string, policy: UrlPolicy = {}): Promise<string> {
  const err = await assertPublicUrl(url, policy).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof UrlNotAllowedError)) throw new Error(`expected a refusal for ${url}, got ${String(err)}`);
  return err.reason;
}

describe("assertPublicUrl", () => {
  it.each([
    ["file:///etc/passwd", {}, "scheme"],
    ["ftp://example.com/x", {}, "scheme"],
    ["javascript:alert(1)", {}, "scheme"],
    ["not a url", {}, "scheme"],
    ["http://user:pw@example.com/", {}, "credentials"],
    ["http://user@example.com/", {}, "credentials"],
    ["http://169.254.169.254/latest/meta-data/", { privateOrigins: ["http://169.254.169.254"] }, "metadata"],
    [
      "http://metadata.google.internal/computeMetadata/v1/",
      { privateOrigins: ["http://metadata.google.internal"] },
      "metadata",
    ],
    ["http://METADATA.google.internal./", {}, "metadata"],
    ["http://[fd00:ec2::254]/", { privateOrigins: ["http://[fd00:ec2::254]"] }, "metadata"],
    ["http://169.254.10.10/", { privateOrigins: ["http://169.254.10.10"] }, "link_local"],
    ["http://[fe80::1]/", { privateOrigins: ["http://[fe80::1]"] }, "link_local"],
    ["http://localhost/", {}, "loopback"],
    ["http://127.0.0.1:8080/", { privateOrigins: ["http://127.0.0.1:8081", "https://127.0.0.1:8080"] }, "loopback"],
    ["http://[::1]/", {}, "loopback"],
    ["http://[::ffff:127.0.0.1]/", {}, "loopback"],
    ["http://2130706433/", {}, "loopback"],
    ["http://0x7f.1/", {}, "loopback"],
    ["http://10.0.0.5/", {}, "private"],
    ["http://192.168.0.1/", { privateOrigins: ["http://192.168.0.2"] }, "private"],
    ["http://100.64.0.1/", {}, "private"],
    ["http://0.0.0.0/", { privateOrigins: ["http://0.0.0.0"] }, "reserved"],
    ["http://does-not-exist.invalid/", {}, "unresolvable"],
  ] as const)("refuses %s (%o) as %s", async (url, policy, reason) => {
    expect(await refusal(url, policy)).toBe(reason);
  });

  it("accepts a public address literal without resolving anything", async () => {
    const checked = await assertPublicUrl("https://93.184.216.34/page?q=1");
    expect(checked.url.href).toBe("https://93.184.216.34/page?q=1");
    expect(checked.addresses).toEqual([{ address: "93.184.216.34", family: 4 }]);
  });

  it("accepts loopback and private addresses only for an allowlisted origin (exact scheme, host and port)", async () => {
    const loopback = await assertPublicUrl("http://localhost:3000/mcp", { privateOrigins: ["http://localhost:3000"] });
    expect(loopback.addresses.length).toBeGreaterThan(0);
    for (const a of loopback.addresses) expect(classifyAddress(a.address)).toBe("loopback");
    const priv = await assertPublicUrl("http://10.0.0.5/x", { privateOrigins: ["http://10.0.0.5:80/"] });
    expect(priv.addresses).toEqual([{ address: "10.0.0.5", family: 4 }]);
    expect(await refusal("http://127.0.0.1:3000/", { privateOrigins: ["http://localhost:3000"] })).toBe("loopback");
  });

  it("treats a mapped .test name as public only in a test environment", async () => {
    const saved = {
      hosts: process.env.GUICHET_TEST_HOSTS,
      env: process.env.NODE_ENV,
      stack: process.env.GUICHET_TEST_STACK,
    };
    try {
      process.env.GUICHET_TEST_HOSTS = "*.test=127.0.0.1,evil.example=127.0.0.1";
      expect((await assertPublicUrl("http://page.test:8080/")).addresses).toEqual([
        { address: "127.0.0.1", family: 4 },
      ]);
      expect(testHostAddresses("evil.example")).toBeNull();
      (process.env as Record<string, string>).NODE_ENV = "production";
      delete process.env.GUICHET_TEST_STACK;
      expect(testHostAddresses("page.test")).toBeNull();
      expect(await refusal("http://page.test:8080/")).toBe("unresolvable");
    } finally {
      Object.assign(process.env, { GUICHET_TEST_HOSTS: saved.hosts, NODE_ENV: saved.env });
      if (saved.hosts === undefined) delete process.env.GUICHET_TEST_HOSTS;
      if (saved.stack !== undefined) process.env.GUICHET_TEST_STACK = saved.stack;
    }
  });

  it("explains the refusal in the message", async () => {
    await expect(assertPublicUrl("http://169.254.169.254/")).rejects.toThrow(/metadata/);
  });
});
