import "server-only";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { newId } from "@/lib/ids";
import { allScopes, type Role } from "@/lib/auth/scopes";
import { hashPassword } from "@/lib/auth/passwords";
import { createApiKey, hashSecret } from "@/lib/api-keys/service";
import { models, plans } from "./reference-data";

export const DEMO_PASSWORD = "guichet-demo";

export const demoMembers: { email: string; name: string; role: Role; org: "acme" | "globex" }[] = [
  { email: "owner@acme.test", name: "Odile Owner", role: "owner", org: "acme" },
  { email: "admin@acme.test", name: "Adrien Admin", role: "admin", org: "acme" },
  { email: "dev@acme.test", name: "Dana Dev", role: "developer", org: "acme" },
  { email: "approver@acme.test", name: "Aline Approver", role: "approver", org: "acme" },
  { email: "viewer@acme.test", name: "Victor Viewer", role: "viewer", org: "acme" },
  { email: "admin@globex.test", name: "Gaston Globex", role: "admin", org: "globex" },
];

/** Plans and models: needed by every deployment, demo or not. Idempotent. */
export async function seedReferenceData() {
  for (const model of models) {
    await db.model.upsert({ where: { id: model.id }, create: model, update: model });
  }
  for (const { models: planModels, ...plan } of plans) {
    await db.plan.upsert({ where: { id: plan.id }, create: plan, update: plan });
    for (const link of planModels) {
      await db.planModel.upsert({
        where: { planId_modelId: { planId: plan.id, modelId: link.modelId } },
        create: { planId: plan.id, ...link },
        update: { isDefault: link.isDefault },
      });
    }
  }
}

async function ensureOrganization(slug: string, name: string, planId: string) {
  const existing = await db.organization.findUnique({ where: { slug } });
  return existing ?? db.organization.create({ data: { id: newId("org"), slug, name, planId } });
}

/**
 * The quickstart's demo tenants, people and API key. Idempotent: a second run
 * changes nothing (the demo key in data/demo-api-key is reused while it is valid).
 */
export async function seedDemoTenants() {
  const orgs = {
    acme: await ensureOrganization("acme", "Acme", "pro"),
    globex: await ensureOrganization("globex", "Globex", "free"),
  };
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  for (const person of demoMembers) {
    const exists = await db.member.findUnique({ where: { email: person.email } });
    if (!exists) {
      await db.member.create({
        data: {
          id: newId("mem"),
          organizationId: orgs[person.org].id,
          email: person.email,
          name: person.name,
          role: person.role,
          passwordHash,
        },
      });
    }
  }
  const demoKey = await ensureDemoApiKey(orgs.acme.id);
  return { orgs, demoKey };
}

async function ensureDemoApiKey(organizationId: string): Promise<string> {
  const file = path.join(env.dataDir, "demo-api-key");
  if (existsSync(file)) {
    const secret = readFileSync(file, "utf8").trim();
    const key = await db.apiKey.findUnique({ where: { secretHash: hashSecret(secret) } });
    if (key && !key.revokedAt && key.organizationId === organizationId) return secret;
  }
  const { secret } = await createApiKey({ organizationId, name: "Clé de démonstration", scopes: [...allScopes] });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}
