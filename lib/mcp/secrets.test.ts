import { describe, expect, it, vi } from "vitest";
import { decryptSecret, encryptSecret } from "./secrets";

// Before lib/env is read: an explicit key, so the test writes no key file.
vi.hoisted(() => {
  process.env.GUICHET_ENCRYPTION_KEY = "unit-tests-encryption-key-0123456789";
});

describe("connector secrets", () => {
  it("round-trips and never stores the plain token", () => {
    const stored = encryptSecret("tok_s3cr3t-value");
    expect(stored).not.toContain("tok_s3cr3t");
    expect(stored.startsWith("v1.")).toBe(true);
    expect(decryptSecret(stored)).toBe("tok_s3cr3t-value");
  });

  it("uses a fresh IV each time", () => {
    expect(encryptSecret("same")).not.toBe(encryptSecret("same"));
  });

  it("refuses a tampered ciphertext", () => {
    const [v, iv, tag, data] = encryptSecret("tok_s3cr3t-value").split(".");
    const flipped = Buffer.from(data, "base64url");
    flipped[0] ^= 1;
    expect(() => decryptSecret([v, iv, tag, flipped.toString("base64url")].join("."))).toThrow();
    expect(() => decryptSecret("garbage")).toThrow("Unreadable stored secret.");
  });
});
