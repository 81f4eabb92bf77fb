import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { api, attemptSignIn, baseUrl, createTenant, signIn, testDb, type Caller, type Tenant } from "./helpers";
import { auditEventFor } from "./audit-helpers";

// Members and invitations: owners and admins invite, change roles, deactivate
// and remove; the change reaches the person's open sessions at the next request.

let tenant: Tenant;
let other: Tenant;
const origin = { origin: new URL(baseUrl).origin };
const STRONG = "Vélo-rouge-sur-la-Loire";

beforeAll(async () => {
  tenant = await createTenant("pro");
  other = await createTenant("pro");
});

async function memberId(email: string) {
  return (await (await testDb()).member.findUniqueOrThrow({ where: { email } })).id;
}

async function invite(as: Caller, email: string, role: string) {
  return api("/v1/invitations", { as, json: { email, role }, headers: origin });
}

async function accept(token: string, name: string, password: string) {
  return api("/api/invitations/accept", { json: { token, name, password } });
}

/** Invites `email` as `role` and accepts with STRONG: the new member's signed-in session. */
async function joined(email: string, role: string): Promise<Caller> {
  const invited = await invite(await tenant.as("admin"), email, role);
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);
  const token = new URL(invited.body.data.url).pathname.split("/").at(-1)!;
  expect((await accept(token, `Nouveau ${role}`, STRONG)).status).toBe(201);
  return signIn(email, STRONG);
}

describe("invitations", () => {
  it("gives a single-use link once, stores only its hash, and the accepted member signs in with the invited role", async () => {
    const admin = await tenant.as("admin");
    const email = `new-approver@${tenant.slug}.test`;
    const invited = await invite(admin, email, "approver");
    expect(invited.status).toBe(201);
    expect(invited.body.data).toMatchObject({ email, role: "approver", status: "pending", emailed: false });
    const url = new URL(invited.body.data.url);
    expect(url.pathname).toMatch(/^\/invitation\/inv_[A-Za-z0-9_-]{40,}$/);
    const token = url.pathname.split("/").at(-1)!;
    const db = await testDb();
    const row = await db.invitation.findUniqueOrThrow({ where: { id: invited.body.data.id } });
    expect(row.tokenHash).toBe(createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(7 * 24 * 60 * 60 * 1000);
    // Listed without its link.
    const listed = await api("/v1/invitations", { as: admin });
    expect(JSON.stringify(listed.body)).not.toContain(token);
    expect(listed.body.data.map((i: { id: string }) => i.id)).toContain(row.id);
    const audit = await auditEventFor(admin, "member.invited", row.id);
    expect(audit.details).toMatchObject({ email, role: "approver" });
    expect(JSON.stringify(audit)).not.toContain(token);

    const weak = await accept(token, "Nina", "password1234");
    expect(weak.status).toBe(400);
    expect(weak.body.error).toMatchObject({
      code: "invalid_parameter",
      errors: [{ field: "password", code: "common" }],
    });
    expect(await db.member.count({ where: { email } })).toBe(0);

    const accepted = await accept(token, "Nina Nouvelle", STRONG);
    expect(accepted.status).toBe(201);
    const member = await db.member.findUniqueOrThrow({ where: { email } });
    expect(member).toMatchObject({ organizationId: tenant.organizationId, role: "approver", name: "Nina Nouvelle" });
    expect(member.passwordHash).toMatch(/^\$2[aby]\$10\$/);
    await auditEventFor(admin, "invitation.accepted", member.id);

    const again = await accept(token, "Intrus", "another-Strong-pass-9");
    expect(again.status).toBe(410);
    expect(again.body.error.code).toBe("invitation_invalid");
    expect(await db.member.count({ where: { email } })).toBe(1);
    expect((await db.member.findUniqueOrThrow({ where: { email } })).name).toBe("Nina Nouvelle");

    const session = await signIn(email, STRONG);
    expect((await api("/v1/proposals", { as: session })).status).toBe(200);
    expect((await api("/v1/members", { as: session })).status).toBe(403);
  });

  it("refuses an expired or revoked link, and an address that is already a member's", async () => {
    const admin = await tenant.as("admin");
    const db = await testDb();
    const expired = await invite(admin, `late@${tenant.slug}.test`, "viewer");
    await db.invitation.update({
      where: { id: expired.body.data.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const lateToken = new URL(expired.body.data.url).pathname.split("/").at(-1)!;
    expect((await accept(lateToken, "Late", STRONG)).body.error.code).toBe("invitation_invalid");

    const revokedInvite = await invite(admin, `revoked@${tenant.slug}.test`, "viewer");
    const revoked = await api(`/v1/invitations/${revokedInvite.body.data.id}`, {
      method: "DELETE",
      as: admin,
      headers: origin,
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.status).toBe("revoked");
    const revokedToken = new URL(revokedInvite.body.data.url).pathname.split("/").at(-1)!;
    expect((await accept(revokedToken, "Revoked", STRONG)).status).toBe(410);
    await auditEventFor(admin, "invitation.revoked", revokedInvite.body.data.id);

    // A member of this organization: said so (it reveals nothing outside it), nothing stored.
    const here = await invite(admin, tenant.emails.viewer, "viewer");
    expect(here.status).toBe(409);
    expect(here.body.error.code).toBe("email_unavailable");
    expect(await db.invitation.count({ where: { email: tenant.emails.viewer } })).toBe(0);

    const garbage = await accept("inv_not-a-real-token-at-all-000000", "X", STRONG);
    expect(garbage.status).toBe(410);
    const invalidBody = await api("/api/invitations/accept", {
      json: { token: lateToken, name: "", password: STRONG, extra: 1 },
    });
    expect(invalidBody.status).toBe(400);
    expect(invalidBody.body.error.code).toBe("unknown_parameter");
  });

  it("lets only an owner invite an owner", async () => {
    const refused = await invite(await tenant.as("admin"), `boss@${tenant.slug}.test`, "owner");
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("owner_role_reserved");
    expect(await (await testDb()).invitation.count({ where: { email: `boss@${tenant.slug}.test` } })).toBe(0);
    expect((await invite(await tenant.as("owner"), `boss@${tenant.slug}.test`, "owner")).status).toBe(201);
  });
});

describe("the member list", () => {
  it("says each member's last successful sign-in, null before the first one", async () => {
    const admin = await tenant.as("admin");
    const email = `first-sign-in@${tenant.slug}.test`;
    const invited = await invite(admin, email, "viewer");
    const token = new URL(invited.body.data.url).pathname.split("/").at(-1)!;
    expect((await accept(token, "Première Connexion", STRONG)).status).toBe(201);
    const listed = async () =>
      (
        (await api("/v1/members?limit=100", { as: admin })).body.data as { email: string; last_sign_in_at: string }[]
      ).find((member) => member.email === email)!;
    expect(await listed()).toMatchObject({ email, status: "active", last_sign_in_at: null });

    // A refused attempt is not a sign-in.
    expect((await attemptSignIn(email, "not-the-password")).cookie).toBeUndefined();
    expect((await listed()).last_sign_in_at).toBeNull();

    await signIn(email, STRONG);
    const id = await memberId(email);
    const event = await (
      await testDb()
    ).auditEvent.findFirstOrThrow({
      where: { organizationId: tenant.organizationId, action: "sign_in.succeeded", targetId: id },
    });
    const after = await listed();
    // Dates are answered to the second.
    expect(after.last_sign_in_at).toBe(event.createdAt.toISOString().replace(/\.\d{3}Z$/, "+00:00"));
    // The PATCH answer carries it too.
    const patched = await api(`/v1/members/${id}`, {
      method: "PATCH",
      as: admin,
      json: { role: "approver" },
      headers: origin,
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.last_sign_in_at).toBe(after.last_sign_in_at);
    // Another organization's sign-ins never show: its owner sees its own members only.
    const foreign = await api("/v1/members?limit=100", { as: await other.as("owner") });
    expect(JSON.stringify(foreign.body)).not.toContain(email);
  });
});

describe("roles, deactivation and removal", () => {
  it("applies a role change to the open session at once and records it", async () => {
    const email = `dev-demoted@${tenant.slug}.test`;
    const session = await joined(email, "developer");
    expect(
      (await api("/v1/agents", { as: session, json: { name: `Avant ${Date.now()}` }, headers: origin })).status,
    ).toBe(201);
    const admin = await tenant.as("admin");
    const id = await memberId(email);
    const changed = await api(`/v1/members/${id}`, {
      method: "PATCH",
      as: admin,
      json: { role: "viewer" },
      headers: origin,
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ role: "viewer", status: "active" });
    const refused = await api("/v1/agents", { as: session, json: { name: `Après ${Date.now()}` }, headers: origin });
    expect(refused.status).toBe(403);
    const event = await auditEventFor(admin, "member.role_changed", id);
    expect(event.details).toMatchObject({ from: "developer", to: "viewer" });
  });

  it("deactivation ends the sessions and refuses sign-in until reactivated", async () => {
    const email = `paused@${tenant.slug}.test`;
    const session = await joined(email, "viewer");
    const admin = await tenant.as("admin");
    const id = await memberId(email);
    const paused = await api(`/v1/members/${id}`, {
      method: "PATCH",
      as: admin,
      json: { active: false },
      headers: origin,
    });
    expect(paused.body.data.status).toBe("deactivated");
    expect((await api("/v1/agents", { as: session })).status).toBe(401);
    expect((await attemptSignIn(email, STRONG)).cookie).toBeUndefined();
    const db = await testDb();
    expect(await db.memberSession.count({ where: { memberId: id } })).toBe(0);
    await auditEventFor(admin, "member.deactivated", id);
    await api(`/v1/members/${id}`, { method: "PATCH", as: admin, json: { active: true }, headers: origin });
    expect((await attemptSignIn(email, STRONG)).cookie).toBeDefined();
    await auditEventFor(admin, "member.reactivated", id);
  });

  it("removal refuses the open session at the next request and deletes the member", async () => {
    const email = `leaving@${tenant.slug}.test`;
    const session = await joined(email, "approver");
    const id = await memberId(email);
    const owner = await tenant.as("owner");
    const removed = await api(`/v1/members/${id}`, { method: "DELETE", as: owner, headers: origin });
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({ id, deleted: true });
    expect((await api("/v1/proposals", { as: session })).status).toBe(401);
    expect(await (await testDb()).member.findUnique({ where: { id } })).toBeNull();
    const event = await auditEventFor(owner, "member.removed", id);
    expect(event.details).toMatchObject({ email, role: "approver" });
  });

  it("keeps the last owner, and lets only an owner grant or change the owner role", async () => {
    const owner = await tenant.as("owner");
    const admin = await tenant.as("admin");
    const ownerId = await memberId(tenant.emails.owner);
    const adminId = await memberId(tenant.emails.admin);
    const db = await testDb();
    const ownersBefore = await db.member.count({ where: { organizationId: tenant.organizationId, role: "owner" } });
    // Another owner may exist (an accepted invitation above): make this the only one for the test.
    if (ownersBefore > 1) {
      const extra = await db.member.findMany({
        where: { organizationId: tenant.organizationId, role: "owner", id: { not: ownerId } },
      });
      for (const m of extra) await api(`/v1/members/${m.id}`, { method: "DELETE", as: owner, headers: origin });
    }
    for (const [method, json] of [
      ["PATCH", { role: "admin" }],
      ["PATCH", { active: false }],
      ["DELETE", undefined],
    ] as const) {
      const response = await api(`/v1/members/${ownerId}`, { method, as: owner, json, headers: origin });
      expect(response.status, `${method} ${JSON.stringify(json)}`).toBe(409);
      expect(response.body.error.code).toBe("last_owner");
    }
    expect(await db.member.findUniqueOrThrow({ where: { id: ownerId } })).toMatchObject({
      role: "owner",
      deactivatedAt: null,
    });

    const grant = await api(`/v1/members/${adminId}`, {
      method: "PATCH",
      as: admin,
      json: { role: "owner" },
      headers: origin,
    });
    expect(grant.status).toBe(403);
    expect(grant.body.error.code).toBe("owner_role_reserved");
    const demote = await api(`/v1/members/${ownerId}`, {
      method: "PATCH",
      as: admin,
      json: { role: "viewer" },
      headers: origin,
    });
    expect(demote.body.error.code).toBe("owner_role_reserved");
    const remove = await api(`/v1/members/${ownerId}`, { method: "DELETE", as: admin, headers: origin });
    expect(remove.body.error.code).toBe("owner_role_reserved");
    expect((await db.member.findUniqueOrThrow({ where: { id: adminId } })).role).toBe("admin");
    expect((await db.member.findUniqueOrThrow({ where: { id: ownerId } })).role).toBe("owner");
  });
});

describe("who may manage members", () => {
  it.each(["developer", "approver", "viewer"] as const)("refuses a %s", async (role) => {
    const caller = await tenant.as(role);
    for (const [path, method] of [
      ["/v1/members", "GET"],
      ["/v1/invitations", "GET"],
      [`/v1/members/${await memberId(tenant.emails.viewer)}`, "DELETE"],
    ] as const) {
      const response = await api(path, { method, as: caller, headers: origin });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.error.code).toBe("forbidden");
    }
    expect((await invite(caller, `x-${role}@${tenant.slug}.test`, "viewer")).status).toBe(403);
  });

  it("refuses an API key", async () => {
    const response = await api("/v1/members", { as: { key: tenant.key } });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe("forbidden");
  });

  it("answers 404 for another organization's member and invitation, and never lists them", async () => {
    const admin = await tenant.as("admin");
    const theirs = await memberId(other.emails.viewer);
    for (const [method, json] of [
      ["PATCH", { role: "approver" }],
      ["DELETE", undefined],
    ] as const) {
      const response = await api(`/v1/members/${theirs}`, { method, as: admin, json, headers: origin });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe("not_found");
    }
    const theirInvite = await invite(await other.as("admin"), `theirs@${other.slug}.test`, "viewer");
    const revoke = await api(`/v1/invitations/${theirInvite.body.data.id}`, {
      method: "DELETE",
      as: admin,
      headers: origin,
    });
    expect(revoke.status).toBe(404);
    const db = await testDb();
    expect((await db.member.findUniqueOrThrow({ where: { id: theirs } })).role).toBe("viewer");
    expect((await db.invitation.findUniqueOrThrow({ where: { id: theirInvite.body.data.id } })).revokedAt).toBeNull();
    const listed = await api("/v1/members?limit=100", { as: admin });
    expect(listed.body.data.map((m: { email: string }) => m.email)).not.toContain(other.emails.viewer);
  });

  it("answers 400 for a malformed id or body", async () => {
    const admin = await tenant.as("admin");
    expect(
      (await api("/v1/members/mem_x", { method: "PATCH", as: admin, json: { role: "viewer" }, headers: origin })).body
        .error.code,
    ).toBe("invalid_parameter");
    const id = await memberId(tenant.emails.viewer);
    expect(
      (await api(`/v1/members/${id}`, { method: "PATCH", as: admin, json: { role: "king" }, headers: origin })).body
        .error.code,
    ).toBe("invalid_parameter");
    expect(
      (await api(`/v1/members/${id}`, { method: "PATCH", as: admin, json: {}, headers: origin })).body.error.code,
    ).toBe("invalid_parameter");
    expect((await invite(admin, "not-an-email", "viewer")).body.error.code).toBe("invalid_parameter");
  });
});

describe("changing one's own password", () => {
  it("asks the current password, refuses a weak one, and the new one signs in", async () => {
    const email = `pw@${tenant.slug}.test`;
    const session = await joined(email, "viewer");
    const put = (json: unknown) =>
      api("/v1/members/me/password", { method: "PUT", as: session, json, headers: origin });
    const wrong = await put({ current_password: "nope-nope-nope", new_password: "Un-autre-mot-de-passe-9" });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe("password_incorrect");
    const weak = await put({ current_password: STRONG, new_password: "azertyuiop12" });
    expect(weak.status).toBe(400);
    expect(weak.body.error.errors[0]).toMatchObject({ field: "new_password" });
    expect((await put({ current_password: STRONG, new_password: "Un-autre-mot-de-passe-9" })).status).toBe(200);
    expect((await attemptSignIn(email, STRONG)).cookie).toBeUndefined();
    expect((await attemptSignIn(email, "Un-autre-mot-de-passe-9")).cookie).toBeDefined();
    await auditEventFor(await tenant.as("admin"), "member.password_changed", await memberId(email));
  });
});
