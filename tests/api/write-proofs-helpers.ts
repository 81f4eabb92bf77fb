import { crmBaseUrl, crmFaults, testDb } from "./helpers";

// Arrangements of the write-path proofs: CRM Acme's `hold_writes` fault (a
// write that reached the service and waits there), and waiting on stored state
// instead of on the clock.

/** How many write calls CRM Acme is holding (they reached the service and wait for release). */
export async function crmHeldWrites(): Promise<number> {
  const response = await fetch(`${crmBaseUrl}/__control/held`);
  return ((await response.json()) as { writes: number }).writes;
}

export const holdWrites = (hold: boolean) => crmFaults({ hold_writes: hold });

/** The operation Guichet opened for a proposal, if any. */
export async function operationOf(proposalId: string) {
  return (await testDb()).operation.findFirst({ where: { proposalId } });
}

/** The write lock's row for a customer of the organization (no Redis in the API suite: the database holds it). */
export function customerLock(organizationId: string, customerId: string): string {
  return `${organizationId}:customer:${customerId}`;
}
