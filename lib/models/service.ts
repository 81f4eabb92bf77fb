import { db, type DbOrTx } from "@/lib/db";

export interface PlanModelView {
  id: string;
  name: string;
  provider: string;
  structuredOutput: boolean;
  isDefault: boolean;
}

/** The models of an organization's plan, default first. */
export async function modelsForOrganization(organizationId: string, tx: DbOrTx = db): Promise<PlanModelView[]> {
  const organization = await tx.organization.findUniqueOrThrow({
    where: { id: organizationId },
    select: { plan: { select: { models: { select: { isDefault: true, model: { select: { id: true, name: true, provider: true, structuredOutput: true } } } } } } },
  });
  return organization.plan.models
    .map(({ isDefault, model }) => ({ ...model, isDefault }))
    .sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || a.name.localeCompare(b.name));
}
