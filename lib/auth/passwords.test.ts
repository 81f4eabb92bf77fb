import bcrypt from "bcryptjs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DUMMY_PASSWORD_HASH, hashPassword, verifyMemberPassword } from "./passwords";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("verifyMemberPassword", () => {
  it("runs one bcrypt compare against the dummy hash for an unknown e-mail, and refuses", async () => {
    const compare = vi.spyOn(bcrypt, "compare");
    expect(await verifyMemberPassword("guichet-demo", undefined)).toBe(false);
    expect(compare).toHaveBeenCalledTimes(1);
    expect(compare.mock.calls[0][1]).toBe(DUMMY_PASSWORD_HASH);
  });

  it("runs one compare against the member's hash otherwise", async () => {
    const hash = await hashPassword("guichet-demo");
    const compare = vi.spyOn(bcrypt, "compare");
    expect(await verifyMemberPassword("guichet-demo", hash)).toBe(true);
    expect(await verifyMemberPassword("wrong", hash)).toBe(false);
    expect(compare).toHaveBeenCalledTimes(2);
    expect(compare.mock.calls.every(([, used]) => used === hash)).toBe(true);
  });

  it("uses a dummy hash of the members' cost, so both paths take as long", async () => {
    expect(bcrypt.getRounds(DUMMY_PASSWORD_HASH)).toBe(bcrypt.getRounds(await hashPassword("x")));
  });
});
