import { describe, expect, it } from "vitest";
import { assertPublicUrl, classifyAddress, refusalFor, UrlNotAllowedError, type UrlPolicy } from "./ssrf";

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
  it("never lets link-local or metadata through, whatever the policy", () => {
    const all: UrlPolicy = { allowPrivate: true, allowLoopback: true };
    expect(refusalFor("metadata", all)).toBe("metadata");
    expect(refusalFor("link_local", all)).toBe("link_local");
    expect(refusalFor("reserved", all)).toBe("reserved");
    expect(refusalFor("private", all)).toBeNull();
    expect(refusalFor("loopback", all)).toBeNull();
    expect(refusalFor("private", {})).toBe("private");
    expect(refusalFor("loopback", { allowPrivate: true })).toBe("loopback");
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
    ["http://169.254.169.254/latest/meta-data/", { allowPrivate: true, allowLoopback: true }, "metadata"],
    ["http://metadata.google.internal/computeMetadata/v1/", { allowPrivate: true }, "metadata"],
    ["http://METADATA.google.internal./", {}, "metadata"],
    ["http://[fd00:ec2::254]/", { allowPrivate: true }, "metadata"],
    ["http://169.254.10.10/", { allowPrivate: true }, "link_local"],
    ["http://[fe80::1]/", { allowPrivate: true, allowLoopback: true }, "link_local"],
    ["http://localhost/", {}, "loopback"],
    ["http://127.0.0.1:8080/", { allowPrivate: true }, "loopback"],
    ["http://[::1]/", {}, "loopback"],
    ["http://[::ffff:127.0.0.1]/", {}, "loopback"],
    ["http://2130706433/", {}, "loopback"],
    ["http://0x7f.1/", {}, "loopback"],
    ["http://10.0.0.5/", {}, "private"],
    ["http://192.168.0.1/", { allowLoopback: true }, "private"],
    ["http://100.64.0.1/", {}, "private"],
    ["http://0.0.0.0/", { allowPrivate: true, allowLoopback: true }, "reserved"],
    ["http://does-not-exist.invalid/", {}, "unresolvable"],
  ] as const)("refuses %s (%o) as %s", async (url, policy, reason) => {
    expect(await refusal(url, policy)).toBe(reason);
  });

  it("accepts a public address literal without resolving anything", async () => {
    const checked = await assertPublicUrl("https://93.184.216.34/page?q=1");
    expect(checked.url.href).toBe("https://93.184.216.34/page?q=1");
    expect(checked.addresses).toEqual([{ address: "93.184.216.34", family: 4 }]);
  });

  it("accepts loopback and private addresses only when the policy allows them", async () => {
    const loopback = await assertPublicUrl("http://localhost:3000/", { allowLoopback: true });
    expect(loopback.addresses.length).toBeGreaterThan(0);
    for (const a of loopback.addresses) expect(classifyAddress(a.address)).toBe("loopback");
    const priv = await assertPublicUrl("http://10.0.0.5/", { allowPrivate: true });
    expect(priv.addresses).toEqual([{ address: "10.0.0.5", family: 4 }]);
  });

  it("explains the refusal in the message", async () => {
    await expect(assertPublicUrl("http://169.254.169.254/")).rejects.toThrow(/metadata/);
  });
});
