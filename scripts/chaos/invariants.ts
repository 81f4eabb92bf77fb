// What must hold after a chaos run, checked against CRM Acme's own records and
// Guichet's database (never against what a run's transcript says), plus what
// the harness's clients were told. A pure function of a snapshot: the test
// beside it feeds it doctored states, one per invariant, to show each can fail.

export interface RunRecord {
  id: string;
  status: string;
  /** A managed run (Guichet runs its model); client-driven runs have no loop and no lease. */
  managed: boolean;
  leaseExpiresAt: Date | null;
  failureCode: string | null;
  hasOutput: boolean;
  /** The proposals a run in requires_approval waits for. */
  heldProposals: string[];
  /** The client tool calls a run in requires_action waits for. */
  requiredActions: number;
}

export interface ProposalRecord {
  id: string;
  runId: string;
  status: string;
  expiresAt: Date;
}

export interface OperationRecord {
  runId: string;
  idempotencyKey: string;
  proposalId: string | null;
  status: string;
  /** The code of a failed operation's stored error. */
  errorCode: string | null;
  createdAt: Date;
}

/**
 * What the commit checks under the write lock answer before anything is sent (lib/proposals/commit-checks.ts):
 * an operation failed with one of these never reached the service.
 */
const REFUSED_BEFORE_SENDING = new Set([
  "PROPOSAL_EXPIRED",
  "PROPOSAL_NOT_APPROVED",
  "PROPOSAL_CONSUMED",
  "PROPOSAL_NOT_FOUND",
  "APPROVER_NOT_AUTHORIZED",
  "CANCELLED",
]);

/** Whether the operation's write went to the service (queued: never claimed; failed before sending: see above). */
function reachedService(op: OperationRecord): boolean {
  return op.status !== "queued" && !(op.status === "failed" && REFUSED_BEFORE_SENDING.has(op.errorCode ?? ""));
}

export interface DecisionRecord {
  proposalId: string;
  decision: string;
}

export interface CrmOperation {
  idempotency_key: string;
  status: string;
  created_at: string;
}

/** A decision the scripted approver was told was recorded (HTTP 200). */
export interface RecordedDecision {
  proposalId: string;
  decision: "approve" | "refuse";
}

/** A commit a client was told succeeded (`ok: true`). */
export interface ToldCommit {
  proposalId: string;
}

export interface ChaosSnapshot {
  now: Date;
  leaseMs: number;
  runs: RunRecord[];
  proposals: ProposalRecord[];
  operations: OperationRecord[];
  decisions: DecisionRecord[];
  crmOperations: CrmOperation[];
  told: { decisions: RecordedDecision[]; commits: ToldCommit[] };
}

export const INVARIANTS = {
  exactly_once: "every approved write committed exactly once or escalated as unknown, never twice",
  no_refused_or_expired_commit: "no refused or expired proposal committed",
  no_run_active_past_lease: "no run left active past its lease",
  ended_or_paused_with_reason: "every run ended or paused with a reason",
  no_lost_decision: "no lost decision",
} as const;
export type Invariant = keyof typeof INVARIANTS;
export type Violations = Record<Invariant, string[]>;

/** Guichet's idempotency key of a commit binds the run, the proposal and the tool: `run:proposal:tool@version`. */
export function proposalOfKey(key: string): string | null {
  return key.split(":").find((part) => part.startsWith("prop_")) ?? null;
}

/** Sent to the service and never settled: neither its outcome nor an escalation is recorded. (A `queued` operation sent nothing: its caller was refused, RATE_LIMITED while another write held the record.) */
const SENT_UNSETTLED = new Set(["running"]);

export function checkInvariants(s: ChaosSnapshot): Violations {
  const violations: Violations = {
    exactly_once: [],
    no_refused_or_expired_commit: [],
    no_run_active_past_lease: [],
    ended_or_paused_with_reason: [],
    no_lost_decision: [],
  };
  const crmSucceeded = s.crmOperations.filter((op) => op.status === "succeeded");
  const crmByKey = new Map(crmSucceeded.map((op) => [op.idempotency_key, op]));
  const committedByProposal = new Map<string, number>();
  for (const op of crmSucceeded) {
    const proposal = proposalOfKey(op.idempotency_key);
    if (proposal) committedByProposal.set(proposal, (committedByProposal.get(proposal) ?? 0) + 1);
  }
  const operationsByKey = new Map(s.operations.map((op) => [op.idempotencyKey, op]));

  // 1. Exactly once, or unknown.
  for (const [proposal, count] of committedByProposal)
    if (count > 1) violations.exactly_once.push(`${proposal} committed ${count} times in CRM Acme`);
  for (const op of s.operations) {
    if (SENT_UNSETTLED.has(op.status))
      violations.exactly_once.push(`operation ${op.idempotencyKey} left ${op.status}: neither settled nor escalated`);
    if (op.status === "succeeded" && !crmByKey.has(op.idempotencyKey))
      violations.exactly_once.push(`operation ${op.idempotencyKey} recorded succeeded, CRM Acme has no such commit`);
  }
  for (const op of crmSucceeded) {
    const recorded = operationsByKey.get(op.idempotency_key);
    if (!recorded) violations.exactly_once.push(`CRM Acme committed ${op.idempotency_key}, Guichet has no operation`);
    else if (recorded.status !== "succeeded" && recorded.status !== "unknown")
      violations.exactly_once.push(
        `CRM Acme committed ${op.idempotency_key}, Guichet recorded it ${recorded.status} (neither succeeded nor unknown)`,
      );
  }
  for (const told of s.told.commits)
    if (!committedByProposal.has(told.proposalId))
      violations.exactly_once.push(`a client was told ${told.proposalId} committed; CRM Acme has no commit of it`);

  // 2. Nothing refused reaches the service; nothing is sent once its proposal expired (an approved
  // proposal expires too: its approval is good only until then). A write is sent, if at all, after its
  // operation is stored: an operation stored after the expiry that reached the service was sent late. The
  // service's own commit time says nothing on its own: a write sent in time may be held there past it.
  const operationByKey = new Map(s.operations.map((op) => [op.idempotencyKey, op]));
  for (const proposal of s.proposals) {
    const sent = s.operations.filter((op) => op.proposalId === proposal.id && reachedService(op));
    const committed = s.crmOperations.filter(
      (op) => op.status === "succeeded" && proposalOfKey(op.idempotency_key) === proposal.id,
    );
    if (proposal.status === "refused") {
      if (committed.length || sent.length)
        violations.no_refused_or_expired_commit.push(
          `${proposal.id} is refused but was ${committed.length ? "committed" : "sent"}`,
        );
      continue;
    }
    const expiry = proposal.expiresAt.getTime();
    const lateOps = sent.filter((op) => op.createdAt.getTime() > expiry);
    const lateCommits = committed.filter((op) => {
      const stored = operationByKey.get(op.idempotency_key);
      return stored ? stored.createdAt.getTime() > expiry : new Date(op.created_at).getTime() > expiry;
    });
    if (lateOps.length || lateCommits.length)
      violations.no_refused_or_expired_commit.push(
        `${proposal.id} was sent after it expired (${proposal.expiresAt.toISOString()}): ${[
          ...lateOps.map((op) => `operation ${op.status} created ${op.createdAt.toISOString()}`),
          ...lateCommits.map((op) => `CRM Acme commit at ${op.created_at}`),
        ].join(", ")}`,
      );
  }

  // 3 and 4. Managed runs: none executing without a live lease; each at rest with its reason.
  for (const run of s.runs.filter((candidate) => candidate.managed)) {
    if (run.status === "active") {
      const lapsedFor = run.leaseExpiresAt ? s.now.getTime() - run.leaseExpiresAt.getTime() : Infinity;
      // Another instance sweeps every third of a lease: two leases after it lapsed, it must have been taken.
      if (lapsedFor > 2 * s.leaseMs)
        violations.no_run_active_past_lease.push(
          `${run.id} active, ${run.leaseExpiresAt ? `lease lapsed ${Math.round(lapsedFor / 1000)} s ago` : "no lease"}`,
        );
      else violations.ended_or_paused_with_reason.push(`${run.id} still active after the settling time`);
      continue;
    }
    const reason =
      run.status === "completed"
        ? run.hasOutput
        : run.status === "failed"
          ? !!run.failureCode
          : run.status === "requires_approval"
            ? run.heldProposals.length > 0
            : run.status === "requires_action"
              ? run.requiredActions > 0
              : run.status === "suspended"
                ? // Suspended by an unknown outcome, until an operator resolves it.
                  s.operations.some((op) => op.runId === run.id && op.status === "unknown")
                : run.status === "cancelled" || run.status === "expired";
    if (!reason) violations.ended_or_paused_with_reason.push(`${run.id} is ${run.status} without its reason`);
  }

  // 5. Every decision people were told was recorded is stored, and acted upon.
  const proposals = new Map(s.proposals.map((proposal) => [proposal.id, proposal]));
  for (const told of s.told.decisions) {
    const stored = s.decisions.some((d) => d.proposalId === told.proposalId && d.decision === told.decision);
    const status = proposals.get(told.proposalId)?.status;
    // An approval that nobody committed in time lapses: the proposal is then expired, the decision still stored.
    const consistent =
      told.decision === "approve"
        ? status === "approved" || status === "consumed" || status === "expired"
        : status === "refused";
    if (!stored || !consistent)
      violations.no_lost_decision.push(
        `${told.decision} of ${told.proposalId} answered 200; stored: ${stored ? "yes" : "no"}, proposal ${status ?? "missing"}`,
      );
  }
  for (const run of s.runs.filter((candidate) => candidate.managed && candidate.status === "requires_approval")) {
    const decided = run.heldProposals.filter((id) => {
      const status = proposals.get(id)?.status;
      return status === "approved" || status === "refused" || status === "consumed";
    });
    if (run.heldProposals.length && decided.length === run.heldProposals.length)
      violations.no_lost_decision.push(`${run.id} still waits for ${decided.join(", ")}, all decided`);
  }
  return violations;
}
