import { beforeAll, describe, expect, it } from "vitest";
import { api, baseUrl, createTenant, testDb, type Caller, type Tenant } from "./helpers";

// Invitations say nothing about other organizations: an address that is a member
// elsewhere is invited like a new one, and the link answers why it cannot be used.
// Each admin sends a bounded number of invitations per hour.

let acme: Tenant;
let globex: Tenant;
const origin = { origin: new URL(baseUrl).origin };
const STRONG = "Vélo-rouge-sur-la-Loire";

beforeAll(async () => {
  [acme, globex] = await Promise.all([createTenant("pro"), createTenant("pro")]);
});

const invite = (as: Caller, email: string, role = "viewer") =>
  api("/v1/invitations", { as, json: { email, role }, headers: origin });
const accept = (token: string) =>
  api("/api/invitations/accept", { json: { token, name: "Quelqu’un", password: STRONG } });
const tokenOf = (url: string) => new URL(url).pathname.split("/").at(-1)!;
const shape = (body: any) => ({
  top: Object.keys(body).sort(),
  data: Object.keys(body.data ?? {}).sort(),
  status: body.data?.status,
  role: body.data?.role,
});

describe("inviting an address that is a member of another organization", () => {
  it("answers exactly as for a new address, and stores both invitations", async () => {
    const admin = await acme.as("admin");
    const fresh = await invite(admin, `nouvelle-${acme.slug}@elsewhere.test`);
    const elsewhere = await invite(admin, globex.emails.developer);
    expect([fresh.status, elsewhere.status]).toEqual([201, 201]);
    expect(shape(elsewhere.body)).toEqual(shape(fresh.body));
    expect(elsewhere.body.data).toMatchObject({ email: globex.emails.developer, status: "pending", emailed: false });

    const db = await testDb();
    for (const invited of [fresh, elsewhere]) {
      const row = await db.invitation.findUniqueOrThrow({ where: { id: invited.body.data.id } });
      expect(row).toMatchObject({ organizationId: acme.organizationId, acceptedAt: null, revokedAt: null });
    }
  });

  it("refuses the link with 409 email_unavailable at acceptance, and changes nothing in either organization", async () => {
    const admin = await acme.as("admin");
    const invited = await invite(admin, globex.emails.approver, "admin");
    expect(invited.status).toBe(201);
    const token = tokenOf(invited.body.data.url);
    const db = await testDb();
    const memberBefore = await db.member.findUniqueOrThrow({ where: { email: globex.emails.approver } });
    const counts = async () =>
      Promise.all([acme, globex].map((t) => db.member.count({ where: { organizationId: t.organizationId } })));
    const countsBefore = await counts();

    // The page says it before the form is even filled.
    const page = await fetch(`${baseUrl}/invitation/${token}`);
    expect(await page.text()).toContain("Un compte Guichet existe déjà avec cette adresse e-mail");

    const refused = await accept(token);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("email_unavailable");
    expect(refused.body.error.errors).toEqual([expect.objectContaining({ field: "email", code: "email_unavailable" })]);

    expect(await counts()).toEqual(countsBefore);
    expect(await db.member.findUniqueOrThrow({ where: { email: globex.emails.approver } })).toEqual(memberBefore);
    const row = await db.invitation.findUniqueOrThrow({ where: { id: invited.body.data.id } });
    expect(row).toMatchObject({ acceptedAt: null, revokedAt: null });
    expect(
      await db.auditEvent.count({
        where: { action: "invitation.accepted", organizationId: { in: [acme.organizationId, globex.organizationId] } },
      }),
    ).toBe(0);
  });

  it("still refuses at once an address that is a member of the same organization", async () => {
    const same = await invite(await acme.as("admin"), acme.emails.viewer);
    expect(same.status).toBe(409);
    expect(same.body.error.code).toBe("email_unavailable");
    expect(await (await testDb()).invitation.count({ where: { email: acme.emails.viewer } })).toBe(0);
  });
});

describe("GUICHET_INVITATIONS_PER_HOUR", () => {
  it("refuses an admin's 21st invitation of the hour with 429 rate_limited and Retry-After, and creates nothing", async () => {
    const tenant = await createTenant("pro");
    const admin = await tenant.as("admin");
    const db = await testDb();
    const adminId = (await db.member.findUniqueOrThrow({ where: { email: tenant.emails.admin } })).id;
    // An invitation sent over an hour ago no longer counts.
    await db.invitation.create({
      data: {
        id: `inv_old${tenant.slug}`.slice(0, 30),
        organizationId: tenant.organizationId,
        email: `old@${tenant.slug}.test`,
        role: "viewer",
        tokenHash: `old-${tenant.slug}`,
        invitedById: adminId,
        expiresAt: new Date(Date.now() + 86_400_000),
        createdAt: new Date(Date.now() - 61 * 60_000),
      },
    });
    for (let i = 1; i <= 20; i++) expect((await invite(admin, `n${i}@${tenant.slug}.test`)).status).toBe(201);

    const limited = await invite(admin, `n21@${tenant.slug}.test`);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("rate_limited");
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(3000);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(await db.invitation.count({ where: { email: `n21@${tenant.slug}.test` } })).toBe(0);
    expect(await db.invitation.count({ where: { invitedById: adminId } })).toBe(21);

    // The limit is the admin's own: the owner of the same organization still invites.
    expect((await invite(await tenant.as("owner"), `n21@${tenant.slug}.test`)).status).toBe(201);
  });
});
