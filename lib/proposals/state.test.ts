import { describe, expect, it } from "vitest";
import { canTransition, effectiveStatus, isTerminal, proposalStatuses, type ProposalStatus } from "./state";

describe("proposal state machine", () => {
  it("allows only the transitions of the proposal's life", () => {
    const pairs = proposalStatuses.flatMap((from) =>
      proposalStatuses.filter((to) => canTransition(from, to)).map((to) => `${from}→${to}`),
    );
    expect(pairs.sort()).toEqual(
      [
        "pending→approved",
        "pending→refused",
        "pending→expired",
        "pending→superseded",
        "pending→revised",
        "pending→withdrawn",
        "approved→consumed",
        "approved→expired",
        "approved→superseded",
      ].sort(),
    );
  });

  it("keeps terminal states terminal", () => {
    for (const status of ["refused", "expired", "superseded", "revised", "consumed", "withdrawn"] as ProposalStatus[]) {
      expect(isTerminal(status)).toBe(true);
      expect(proposalStatuses.some((to) => canTransition(status, to))).toBe(false);
    }
    expect(isTerminal("pending")).toBe(false);
    expect(isTerminal("approved")).toBe(false);
  });

  it("computes expiry lazily, at the exact instant", () => {
    const expiresAt = new Date("2026-09-21T10:00:00Z");
    expect(effectiveStatus({ status: "pending", expiresAt }, new Date("2026-09-21T09:59:59.999Z"))).toBe("pending");
    expect(effectiveStatus({ status: "pending", expiresAt }, expiresAt)).toBe("expired");
    expect(effectiveStatus({ status: "approved", expiresAt }, new Date("2026-09-22T00:00:00Z"))).toBe("expired");
    // A decided proposal keeps what was decided: silence never turns a refusal or a commit into something else.
    expect(effectiveStatus({ status: "refused", expiresAt }, new Date("2026-09-22T00:00:00Z"))).toBe("refused");
    expect(effectiveStatus({ status: "consumed", expiresAt }, new Date("2026-09-22T00:00:00Z"))).toBe("consumed");
  });

  it("refuses a status it does not know", () => {
    expect(() => effectiveStatus({ status: "approved-ish", expiresAt: new Date() })).toThrow(/Unknown proposal status/);
  });
});
