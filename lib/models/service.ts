import "server-only";
import { db, type DbOrTx } from "@/lib/db";
import { notFound } from "@/lib/http/errors";

export interface PlanModelView {
  id: string;
  name: string;
  provider: string;
  structuredOutput: boolean;
  isDefault: boolean;
}

// A plan's models are reference data: seeded with the plan, never edited by the
// product (a test or an operator makes a new plan id and moves the organization).
// Loading them through the organization cost four queries on every request; the
// organization's plan is still read fresh each time (a move takes effect at once),
// only plan → models is kept, at most PLAN_MODELS_TTL_MS (a re-seed shows within that).
const PLAN_MODELS_TTL_MS = 60_000;
const planModelsCache = new Map<string, { expiresAt: number; models: PlanModelView[] }>();

async function planModels(planId: string, tx: DbOrTx): Promise<PlanModelView[]> {
  const cached = planModelsCache.get(planId);
  if (cached && cached.expiresAt > Date.now()) return cached.models;
  // Read with the caller's client (inside a transaction, the only one that can read);
  // only a value is kept, so no request waits on another's transaction.
  const rows = await tx.planModel.findMany({
    where: { planId },
    select: { isDefault: true, model: { select: { id: true, name: true, provider: true, structuredOutput: true } } },
  });
  const models = rows
    .map(({ isDefault, model }) => ({ ...model, isDefault }))
    .sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || a.name.localeCompare(b.name));
  planModelsCache.set(planId, { expiresAt: Date.now() + PLAN_MODELS_TTL_MS, models });
  return models;
}

/** The models of an organization's plan, default first. */
export async function modelsForOrganization(organizationId: string, tx: DbOrTx = db): Promise<PlanModelView[]> {
  // SQL rather than findUniqueOrThrow, which Prisma 6 compiles anew on every call (0.2 → 0.03 ms).
  const [organization] = await tx.$queryRaw<
    { planId: string }[]
  >`SELECT "planId" FROM "Organization" WHERE "id" = ${organizationId}`;
  if (!organization) throw notFound(); // what findUniqueOrThrow answered (P2025 → 404)
  const { planId } = organization;
  // Copies: callers may sort or edit what they get without touching the cache.
  return (await planModels(planId, tx)).map((model) => ({ ...model }));
}
