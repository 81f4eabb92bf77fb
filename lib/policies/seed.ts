import "server-only";
import { db } from "@/lib/db";
import { currentPolicy } from "./service";

/** Every organization gets the default table as version 1 if it has none. Idempotent. */
export async function seedPolicies(): Promise<void> {
  const organizations = await db.organization.findMany({ select: { id: true } });
  for (const organization of organizations) await currentPolicy(organization.id);
}
