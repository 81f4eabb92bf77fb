import { describe, expect, it } from "vitest";
import { checkInvariants, INVARIANTS, type ChaosSnapshot, type Invariant } from "./invariants";

// Each invariant of the chaos harness fails on a state doctored to break it,
// and only that one: a harness whose checks cannot fail would print 0 forever.

const now = new Date("2026-12-05T12:00:00Z");
const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
const key = (run: string, proposal: string) => `${run}:${proposal}:mcp_1_commit_address_change@1`;

function healthy(): ChaosSnapshot {
  const run = (id: string, status: string, extra: Partial<ChaosSnapshot["runs"][number]> = {}) => ({
    id,
    status,
    managed: true,
    leaseExpiresAt: null,
    failureCode: null,
    hasOutput: false,
    heldProposals: [],
    requiredActions: 0,
    ...extra,
  });
  return {
    now,
    leaseMs: 3000,
    runs: [
      run("run_done", "completed", { hasOutput: true }),
      run("run_failed", "failed", { failureCode: "model_error" }),
      run("run_waiting", "requires_approval", { heldProposals: ["prop_pending"] }),
      run("run_action", "requires_action", { requiredActions: 1 }),
      run("run_cancelled", "cancelled"),
      run("run_client", "active", { managed: false }),
      run("run_suspended", "suspended"),
    ],
    proposals: [
      { id: "prop_done", runId: "run_done", status: "consumed", expiresAt: new Date(now.getTime() + 60_000) },
      { id: "prop_refused", runId: "run_failed", status: "refused", expiresAt: new Date(now.getTime() + 60_000) },
      { id: "prop_pending", runId: "run_waiting", status: "pending", expiresAt: new Date(now.getTime() + 60_000) },
      { id: "prop_unknown", runId: "run_suspended", status: "approved", expiresAt: ago(5) },
      // Approved, its commit refused RATE_LIMITED (nothing sent, the operation left queued), then lapsed.
      { id: "prop_lapsed", runId: "run_client", status: "expired", expiresAt: ago(2) },
    ],
    operations: [
      {
        runId: "run_client",
        idempotencyKey: key("run_client", "prop_lapsed"),
        proposalId: "prop_lapsed",
        status: "queued",
        errorCode: null,
        createdAt: ago(30),
      },
      {
        runId: "run_done",
        idempotencyKey: key("run_done", "prop_done"),
        proposalId: "prop_done",
        status: "succeeded",
        errorCode: null,
        createdAt: ago(30),
      },
      {
        runId: "run_suspended",
        idempotencyKey: key("run_suspended", "prop_unknown"),
        proposalId: "prop_unknown",
        status: "unknown",
        errorCode: null,
        createdAt: ago(20),
      },
    ],
    decisions: [
      { proposalId: "prop_lapsed", decision: "approve" },
      { proposalId: "prop_done", decision: "approve" },
      { proposalId: "prop_refused", decision: "refuse" },
      { proposalId: "prop_unknown", decision: "approve" },
    ],
    crmOperations: [
      { idempotency_key: key("run_done", "prop_done"), status: "succeeded", created_at: ago(29).toISOString() },
      // Escalated as unknown in Guichet, applied by the service: allowed.
      { idempotency_key: key("run_suspended", "prop_unknown"), status: "succeeded", created_at: ago(19).toISOString() },
    ],
    told: {
      decisions: [
        { proposalId: "prop_lapsed", decision: "approve" },
        { proposalId: "prop_done", decision: "approve" },
        { proposalId: "prop_refused", decision: "refuse" },
      ],
      commits: [{ proposalId: "prop_done" }],
    },
  };
}

function broken(invariant: Invariant, doctor: (s: ChaosSnapshot) => void) {
  const snapshot = healthy();
  doctor(snapshot);
  const violations = checkInvariants(snapshot);
  for (const name of Object.keys(INVARIANTS) as Invariant[])
    expect(violations[name].length > 0, `${name} on a state that breaks ${invariant}`).toBe(name === invariant);
  return violations[invariant];
}

describe("the chaos harness's invariants", () => {
  it("hold on a healthy state (escalated unknown writes included)", () => {
    const violations = checkInvariants(healthy());
    expect(Object.values(violations).flat()).toEqual([]);
  });

  it("catch a write committed twice, one left in flight, a failure CRM Acme committed, a success nobody committed", () => {
    expect(
      broken("exactly_once", (s) =>
        s.crmOperations.push({
          idempotency_key: "run_done:prop_done:retry",
          status: "succeeded",
          created_at: ago(10).toISOString(),
        }),
      ),
    ).toEqual(["prop_done committed 2 times in CRM Acme", expect.stringContaining("Guichet has no operation")]);
    expect(broken("exactly_once", (s) => void (s.operations[1].status = "running"))).toEqual([
      expect.stringContaining("left running"),
      expect.stringContaining("recorded it running"),
    ]);
    expect(
      broken("exactly_once", (s) => {
        s.operations[2].status = "failed";
        Object.assign(s.runs[6], { status: "failed", failureCode: "model_error" });
      }),
    ).toEqual([expect.stringContaining("recorded it failed")]);
    expect(broken("exactly_once", (s) => void (s.crmOperations = s.crmOperations.slice(1)))).toEqual([
      expect.stringContaining("recorded succeeded, CRM Acme has no such commit"),
      expect.stringContaining("a client was told prop_done committed"),
    ]);
  });

  it("catch a refused proposal committed and a commit sent after its proposal expired", () => {
    expect(
      broken("no_refused_or_expired_commit", (s) => {
        const refusedKey = key("run_failed", "prop_refused");
        s.operations.push({
          runId: "run_failed",
          idempotencyKey: refusedKey,
          proposalId: "prop_refused",
          status: "succeeded",
          errorCode: null,
          createdAt: ago(2),
        });
        s.crmOperations.push({ idempotency_key: refusedKey, status: "succeeded", created_at: ago(1).toISOString() });
      }),
    ).toEqual(["prop_refused is refused but was committed"]);
    expect(broken("no_refused_or_expired_commit", (s) => void (s.operations[2].createdAt = ago(1)))).toEqual([
      expect.stringMatching(/^prop_unknown was sent after it expired \(.*\): operation \w+ created /),
    ]);
    // Refused after its expiry failed upstream: it reached the service.
    expect(
      broken("no_refused_or_expired_commit", (s) => {
        s.operations.push({
          runId: "run_client",
          idempotencyKey: `${key("run_client", "prop_lapsed")}:2`,
          proposalId: "prop_lapsed",
          status: "failed",
          errorCode: "INVALID_ARGUMENTS",
          createdAt: ago(1),
        });
      }),
    ).toEqual([expect.stringMatching(/^prop_lapsed was sent after it expired/)]);
  });

  it("hold when a late attempt was refused before sending, or a write sent in time committed late", () => {
    const snapshot = healthy();
    // Stored after the expiry, refused under the lock as expired: nothing reached the service.
    snapshot.operations.push({
      runId: "run_client",
      idempotencyKey: `${key("run_client", "prop_lapsed")}:2`,
      proposalId: "prop_lapsed",
      status: "failed",
      errorCode: "PROPOSAL_EXPIRED",
      createdAt: ago(1),
    });
    // prop_unknown's write was sent 15 s before its expiry; CRM Acme held it and committed it after.
    snapshot.crmOperations[1].created_at = ago(1).toISOString();
    expect(Object.values(checkInvariants(snapshot)).flat()).toEqual([]);
  });

  it("catch a managed run left active two leases past its lease, and one with no lease", () => {
    const active = (s: ChaosSnapshot, lease: Date | null) =>
      Object.assign(s.runs[4], { status: "active", leaseExpiresAt: lease });
    expect(broken("no_run_active_past_lease", (s) => active(s, ago(7)))).toEqual([
      "run_cancelled active, lease lapsed 7 s ago",
    ]);
    expect(broken("no_run_active_past_lease", (s) => active(s, null))).toEqual(["run_cancelled active, no lease"]);
    // Within its lease, but still executing once every fault stopped and the settling time passed.
    expect(broken("ended_or_paused_with_reason", (s) => active(s, new Date(now.getTime() + 1000)))).toEqual([
      "run_cancelled still active after the settling time",
    ]);
  });

  it("catch a run at rest without its reason", () => {
    expect(broken("ended_or_paused_with_reason", (s) => void (s.runs[1].failureCode = null))).toEqual([
      "run_failed is failed without its reason",
    ]);
    expect(broken("ended_or_paused_with_reason", (s) => void (s.runs[3].requiredActions = 0))).toHaveLength(1);
    expect(broken("ended_or_paused_with_reason", (s) => void (s.runs[0].hasOutput = false))).toHaveLength(1);
    // Suspended with no unknown outcome to resolve: nothing says why it waits.
    expect(
      broken("ended_or_paused_with_reason", (s) => void (s.runs[6] = { ...s.runs[6], id: "run_other_suspended" })),
    ).toEqual(["run_other_suspended is suspended without its reason"]);
  });

  it("catch a decision answered 200 but not stored, and a run still waiting for decided proposals", () => {
    expect(
      broken("no_lost_decision", (s) => void (s.decisions = s.decisions.filter((d) => d.proposalId !== "prop_done"))),
    ).toEqual(["approve of prop_done answered 200; stored: no, proposal consumed"]);
    expect(broken("no_lost_decision", (s) => void (s.proposals[2].status = "approved"))).toEqual([
      "run_waiting still waits for prop_pending, all decided",
    ]);
  });
});
