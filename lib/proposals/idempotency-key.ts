import type { Contract } from "@/lib/contracts/types";

/** The key the service stores with the write: the same commit of the same proposal in the same run, the same key. */
export function idempotencyKeyFor(
  runId: string,
  proposalId: string,
  contract: Pick<Contract, "key" | "version">,
): string {
  return `${runId}:${proposalId}:${contract.key}@${contract.version}`;
}
