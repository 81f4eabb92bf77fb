import "server-only";
import { db, type DbOrTx } from "@/lib/db";
import { WatchedCache } from "@/lib/db/changes";
import { notFound } from "@/lib/http/errors";

export interface PlanModelView {
  id: string;
  name: string;
  provider: string;
  structuredOutput: boolean;
  isDefault: boolean;
}

// An organization's plan and a plan's models, kept by each instance while no
// organization, plan or model changes anywhere (lib/db/changes.ts): a move to
// another plan shows at once on every instance. Only what was read outside a
// transaction is kept (a transaction may see its own uncommitted writes).
const organizationPlans = new WatchedCache<string, string>(["tenancy"]);
const planModelsCache = new WatchedCache<string, PlanModelView[]>(["tenancy"]);

async function loadPlanModels(planId: string, tx: DbOrTx): Promise<PlanModelView[]> {
  const rows = await tx.planModel.findMany({
    where: { planId },
    select: { isDefault: true, model: { select: { id: true, name: true, provider: true, structuredOutput: true } } },
  });
  return rows
    .map(({ isDefault, model }) => ({ ...model, isDefault }))
    .sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || a.name.localeCompare(b.name));
}

async function loadPlanId(organizationId: string, tx: DbOrTx): Promise<string | null> {
  // SQL rather than findUniqueOrThrow, which Prisma 6 compiles anew on every call (README, Benchmarks).
  const [organization] = await tx.$queryRaw<
    { planId: string }[]
  >`SELECT "planId" FROM "Organization" WHERE "id" = ${organizationId}`;
  return organization?.planId ?? null;
}

/** The models of an organization's plan, default first. */
export async function modelsForOrganization(organizationId: string, tx: DbOrTx = db): Promise<PlanModelView[]> {
  const planId =
    tx === db
      ? await organizationPlans.get(organizationId, () => loadPlanId(organizationId, db))
      : await loadPlanId(organizationId, tx);
  if (!planId) throw notFound(); // what findUniqueOrThrow answered (P2025 → 404)
  // The product never edits a plan's models: a transaction may use the kept ones.
  const models =
    tx === db
      ? await planModelsCache.get(planId, () => loadPlanModels(planId, db))
      : (planModelsCache.current(planId) ?? (await loadPlanModels(planId, tx)));
  // Copies: callers may sort or edit what they get without touching the cache.
  return models.map((model) => ({ ...model }));
}
