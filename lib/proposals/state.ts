// The proposal's life: pending → approved | refused | expired |
// superseded | revised (a person replaced its arguments with a new proposal)
// | withdrawn (the requester took it back before anyone decided), then approved → consumed (committed) | expired | superseded.
// Terminal states stay terminal. Expiry is a fact of the clock, so it is
// computed here rather than waiting for a job to write it down; every write
// of a status is conditional on the status it was read in.

export const proposalStatuses = [
  "pending",
  "approved",
  "refused",
  "expired",
  "superseded",
  "revised",
  "consumed",
  "withdrawn",
] as const;
export type ProposalStatus = (typeof proposalStatuses)[number];

export const terminalStatuses: readonly ProposalStatus[] = [
  "refused",
  "expired",
  "superseded",
  "revised",
  "consumed",
  "withdrawn",
];

const allowed: Record<ProposalStatus, readonly ProposalStatus[]> = {
  pending: ["approved", "refused", "expired", "superseded", "revised", "withdrawn"],
  approved: ["consumed", "expired", "superseded"],
  refused: [],
  expired: [],
  superseded: [],
  revised: [],
  consumed: [],
  withdrawn: [],
};

export function canTransition(from: ProposalStatus, to: ProposalStatus): boolean {
  return allowed[from].includes(to);
}

export function isTerminal(status: ProposalStatus): boolean {
  return terminalStatuses.includes(status);
}

export function asStatus(value: string): ProposalStatus {
  if ((proposalStatuses as readonly string[]).includes(value)) return value as ProposalStatus;
  throw new Error(`Unknown proposal status: ${value}`);
}

/** The status now: a pending or approved proposal past its expiry has expired, written down or not. */
export function effectiveStatus(proposal: { status: string; expiresAt: Date }, now = new Date()): ProposalStatus {
  const status = asStatus(proposal.status);
  if ((status === "pending" || status === "approved") && proposal.expiresAt.getTime() <= now.getTime())
    return "expired";
  return status;
}

/** Whether the proposal still stands for its change (a new preview of the same change finds it). */
export function holdsDedupe(status: ProposalStatus): boolean {
  return status !== "expired" && status !== "superseded" && status !== "revised" && status !== "withdrawn";
}

/** The key that makes a second preview of the same change by the same run find the first card. */
export function dedupeKeyOf(runId: string, tool: string, argumentsSha256: string): string {
  return `${runId}:${tool}:${argumentsSha256}`;
}
