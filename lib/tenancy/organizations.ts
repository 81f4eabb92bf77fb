import "server-only";
import { randomBytes } from "node:crypto";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { hashPassword } from "@/lib/auth/passwords";
import type { Principal } from "@/lib/auth/principal";
import { db, type DbOrTx } from "@/lib/db";
import { env } from "@/lib/env";
import { ApiError, notFound } from "@/lib/http/errors";
import { hit, rateLimited } from "@/lib/http/rate-limit";
import { newId } from "@/lib/ids";
import { grantedSlugs } from "@/lib/net/origin-grants-syntax";
import { isoOffset } from "@/lib/time";
import type { OrganizationObject, SetupBody, SetupStatusObject } from "./schemas";

// Creating organizations: the instance's first (the first run, whose owner becomes
// the instance owner), later ones by the instance owner, and public sign-up when
// the operator allows it. The demo's slugs stay the demo's: a real organization
// named "Acme" gets another slug, so the demo seed never mistakes it for its own.
// Likewise a slug GUICHET_PRIVATE_ORIGINS grants by name stays the operator's: a new
// organization never gets one, so it cannot inherit another's private origins.

export const DEMO_SLUGS = ["acme", "globex"] as const;
/** The plan of the first organization, and of signed-up ones. */
const FIRST_RUN_PLAN = "pro";
const SIGNUP_PLAN = "free";

function slugBase(name: string): string {
  const base = name
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return base || "organisation";
}

async function freeSlug(name: string, tx: DbOrTx): Promise<string> {
  const base = slugBase(name);
  const granted = grantedSlugs(env.privateOriginGrants);
  const reserved = (slug: string) => (DEMO_SLUGS as readonly string[]).includes(slug) || granted.has(slug);
  if (!reserved(base) && !(await tx.organization.findUnique({ where: { slug: base }, select: { id: true } })))
    return base;
  for (;;) {
    const slug = `${base}-${randomBytes(3).toString("hex")}`;
    if (!reserved(slug)) return slug;
  }
}

async function assertPlan(planId: string, tx: DbOrTx): Promise<void> {
  if (!(await tx.plan.findUnique({ where: { id: planId }, select: { id: true } })))
    throw new ApiError("invalid_parameter", `Unknown plan "${planId}".`, {
      errors: [{ field: "plan", code: "invalid_value", message: `Unknown plan "${planId}".` }],
    });
}

const emailTaken = () =>
  new ApiError("email_taken", "A member already uses this e-mail address.", {
    errors: [{ field: "email", code: "taken", message: "A member already uses this e-mail address." }],
  });

interface NewOrganization {
  organization: string;
  planId: string;
  /** Hashed before the transaction: bcrypt takes a while. */
  owner: { name: string; email: string; passwordHash: string; instanceOwner?: boolean };
  /**
   * How it came to be, for the new organization's audit trail: the first run and a
   * sign-up are the new owner's own act; otherwise the instance owner who created it.
   */
  origin: { via: "first_run" | "signup" } | { via: "instance_owner"; actor: AuditActor };
}

/** An organization and its owner, in the caller's transaction. A taken e-mail is 409 email_taken. */
export async function createOrganizationWithOwner(input: NewOrganization, tx: DbOrTx = db) {
  await assertPlan(input.planId, tx);
  if (await tx.member.findUnique({ where: { email: input.owner.email }, select: { id: true } })) throw emailTaken();
  const organization = await tx.organization.create({
    data: {
      id: newId("org"),
      name: input.organization,
      slug: await freeSlug(input.organization, tx),
      planId: input.planId,
    },
  });
  const member = await tx.member.create({
    data: {
      id: newId("mem"),
      organizationId: organization.id,
      email: input.owner.email,
      name: input.owner.name,
      role: "owner",
      instanceOwner: input.owner.instanceOwner ?? false,
      passwordHash: input.owner.passwordHash,
    },
    select: { id: true, email: true, instanceOwner: true },
  });
  await recordAudit(
    {
      organizationId: organization.id,
      actor:
        input.origin.via === "instance_owner"
          ? input.origin.actor
          : { type: "member", id: member.id, label: member.email },
      action: "organization.created",
      target: { type: "organization", id: organization.id },
      details: { via: input.origin.via, plan: input.planId, owner: member.email },
    },
    tx,
  );
  return { organization, member };
}

export async function setupStatus(tx: DbOrTx = db): Promise<SetupStatusObject> {
  return { first_run: (await tx.organization.count()) === 0, signup: env.GUICHET_ALLOW_SIGNUP === "1" };
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2002";
}

const alreadySetUp = () =>
  new ApiError("already_set_up", "This instance already has an organization: sign in, or ask its owner for access.");

/**
 * The instance's first organization and its owner (the instance owner). Once: the
 * Instance row's fixed key makes two simultaneous first runs one, on both databases.
 */
export async function createFirstOrganization(input: SetupBody) {
  const passwordHash = await hashPassword(input.password);
  try {
    return await db.$transaction(async (tx) => {
      await tx.instance.create({ data: { id: 1 } });
      if ((await tx.organization.count()) > 0) throw alreadySetUp();
      const created = await createOrganizationWithOwner(
        {
          organization: input.organization,
          planId: (await tx.plan.findUnique({ where: { id: FIRST_RUN_PLAN } })) ? FIRST_RUN_PLAN : SIGNUP_PLAN,
          owner: { name: input.name, email: input.email, passwordHash, instanceOwner: true },
          origin: { via: "first_run" },
        },
        tx,
      );
      return created;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw alreadySetUp();
    throw error;
  }
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * The first run, or (GUICHET_ALLOW_SIGNUP=1) a sign-up; anything else is refused.
 * Sign-ups count per client address (GUICHET_SIGNUP_PER_HOUR), before the password
 * is hashed: past the limit, 429 and nothing is created.
 */
export async function setUpOrganization(input: SetupBody, clientAddress: string) {
  const status = await setupStatus();
  if (status.first_run) return { ...(await createFirstOrganization(input)), firstRun: true };
  if (!status.signup) throw alreadySetUp();
  const decision = await hit(`signup:${clientAddress}`, env.GUICHET_SIGNUP_PER_HOUR, HOUR_MS);
  if (!decision.allowed) throw rateLimited(decision.retryAfterMs, "Too many sign-ups from this address.");
  const passwordHash = await hashPassword(input.password);
  try {
    const created = await db.$transaction((tx) =>
      createOrganizationWithOwner(
        {
          organization: input.organization,
          planId: SIGNUP_PLAN,
          owner: { name: input.name, email: input.email, passwordHash },
          origin: { via: "signup" },
        },
        tx,
      ),
    );
    return { ...created, firstRun: false };
  } catch (error) {
    // Two sign-ups with one address at once: the loser meets the unique index.
    if (isUniqueViolation(error)) throw emailTaken();
    throw error;
  }
}

/** The instance owner's actions; anyone else is 403. */
export async function assertInstanceOwner(principal: Principal, tx: DbOrTx = db): Promise<void> {
  const member =
    principal.kind === "member"
      ? await tx.member.findUnique({ where: { id: principal.memberId }, select: { instanceOwner: true } })
      : null;
  if (!member?.instanceOwner)
    throw new ApiError("forbidden", "Only the instance owner creates organizations and assigns their plans.");
}

const organizationSelect = {
  id: true,
  name: true,
  slug: true,
  planId: true,
  createdAt: true,
  _count: { select: { members: true } },
} as const;

function serialize(row: {
  id: string;
  name: string;
  slug: string;
  planId: string;
  createdAt: Date;
  _count: { members: number };
}): OrganizationObject {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    plan: row.planId,
    member_count: row._count.members,
    created_at: isoOffset(row.createdAt),
  };
}

export async function listOrganizations(tx: DbOrTx = db): Promise<OrganizationObject[]> {
  const rows = await tx.organization.findMany({ select: organizationSelect, orderBy: { createdAt: "asc" } });
  return rows.map(serialize);
}

export async function organizationView(id: string, tx: DbOrTx = db): Promise<OrganizationObject> {
  const row = await tx.organization.findUnique({ where: { id }, select: organizationSelect });
  if (!row) throw notFound("Organization");
  return serialize(row);
}

export async function assignPlan(id: string, planId: string, tx: DbOrTx = db): Promise<OrganizationObject> {
  await organizationView(id, tx);
  await assertPlan(planId, tx);
  await tx.organization.update({ where: { id }, data: { planId } });
  return organizationView(id, tx);
}
