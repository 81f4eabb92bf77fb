import { describe, expect, it, vi } from "vitest";
import { decryptSecret, encryptSecret } from "./secrets";

// Before lib/env is read: an explicit key, so the test writes no key file.
vi.hoisted(() => {
  process.env.GUICHET_ENCRYPTION_KEY = "unit-tests-encryption-key-0123456789";
});

const crm = "https://crm.example.com";

describe("connector secrets", () => {
  it("round-trips and never stores the plain token", () => {
    const stored = encryptSecret("tok_s3cr3t-value", crm);
    expect(stored).not.toContain("tok_s3cr3t");
    expect(stored.startsWith("v2.")).toBe(true);
    expect(decryptSecret(stored, crm)).toBe("tok_s3cr3t-value");
  });

  it("uses a fresh IV each time", () => {
    expect(encryptSecret("same", crm)).not.toBe(encryptSecret("same", crm));
  });

  it("refuses a tampered ciphertext", () => {
    const [v, iv, tag, data] = encryptSecret("tok_s3cr3t-value", crm).split(".");
    const flipped = Buffer.from(data, "base64url");
    flipped[0] ^= 1;
    expect(() => decryptSecret([v, iv, tag, flipped.toString("base64url")].join("."), crm)).toThrow();
    expect(() => decryptSecret("garbage", crm)).toThrow("Unreadable stored secret.");
  });

  it("decrypts a token only for the origin it was stored for", () => {
    const stored = encryptSecret("tok_bound", crm);
    for (const other of ["https://evil.example.com", "http://crm.example.com", "https://crm.example.com:8443", ""]) {
      expect(() => decryptSecret(stored, other), other).toThrow();
    }
    expect(decryptSecret(stored, crm)).toBe("tok_bound");
  });

  it("no longer reads unbound v1 tokens", () => {
    const [, iv, tag, data] = encryptSecret("tok_old", crm).split(".");
    expect(() => decryptSecret(["v1", iv, tag, data].join("."), crm)).toThrow("Unreadable stored secret.");
  });
});

describe("member-bound secrets", () => {
  const binding = { serverId: 5, memberId: "mem_dana" };

  it("open only for the same origin, connector and member", async () => {
    const { openBoundSecret, sealBoundSecret } = await import("./secrets");
    const stored = sealBoundSecret("at_dana", crm, binding);
    expect(openBoundSecret(stored, crm, binding)).toBe("at_dana");
    expect(() => openBoundSecret(stored, crm, { serverId: 5, memberId: "mem_leo" })).toThrow();
    expect(() => openBoundSecret(stored, crm, { serverId: 6, memberId: "mem_dana" })).toThrow();
    expect(() => openBoundSecret(stored, "https://evil.example.com", binding)).toThrow();
    expect(() => openBoundSecret(stored, crm, { serverId: 5 })).toThrow();
    expect(() => decryptSecret(stored, crm)).toThrow();
  });
});
