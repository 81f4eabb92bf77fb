import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, baseUrl, createTenant, signIn, signOut, suiteNetwork, testDb, type Caller, type Tenant } from "./helpers";
import { startApp } from "./server";

// Sessions are rows in the database, read on every request: an old cookie
// replayed after sign-out, after "sign out everywhere", after the member was
// removed, or past the idle timeout, gets nothing — on every instance at once.

let tenant: Tenant;
/** A second instance on the same database, with a one-minute idle timeout. */
let second: Awaited<ReturnType<typeof startApp>>;

beforeAll(async () => {
  tenant = await createTenant("pro");
  second = await startApp({
    ...process.env,
    NODE_ENV: "production",
    ...suiteNetwork(),
    GUICHET_SESSION_IDLE_TIMEOUT: "60",
  });
});

afterAll(async () => {
  await second?.stop();
});

async function sessionOf(caller: Caller, at = baseUrl) {
  const response = await fetch(`${at}/api/auth/session`, { headers: { cookie: caller.cookie! } });
  expect(response.status).toBe(200);
  return response.json();
}

async function expectSignedOut(caller: Caller, at = baseUrl) {
  const agents = await fetch(`${at}/v1/agents`, { headers: { cookie: caller.cookie! } });
  expect(agents.status).toBe(401);
  expect((await agents.json()).error.code).toBe("unauthenticated");
  expect(await sessionOf(caller, at)).toEqual({});
}

async function sessionIdOf(email: string) {
  const db = await testDb();
  const member = await db.member.findUniqueOrThrow({
    where: { email },
    select: { sessions: { select: { id: true, lastSeenAt: true } } },
  });
  return member.sessions;
}

describe("signing out", () => {
  it("ends the session: the old cookie replayed gets 401 on /v1 and an empty /api/auth/session", async () => {
    const before = (await sessionIdOf(tenant.emails.developer)).length;
    const caller = await signIn(tenant.emails.developer);
    expect((await api("/v1/agents", { as: caller })).status).toBe(200);
    expect((await sessionOf(caller)).member.role).toBe("developer");
    expect(await sessionIdOf(tenant.emails.developer)).toHaveLength(before + 1);
    await signOut(caller);
    await expectSignedOut(caller);
    expect(await sessionIdOf(tenant.emails.developer)).toHaveLength(before);
  });

  it("on one instance ends the session on the other one at once", async () => {
    const caller = await signIn(tenant.emails.viewer);
    expect((await api("/v1/agents", { as: caller })).status).toBe(200);
    expect((await fetch(`${second.baseUrl}/v1/agents`, { headers: { cookie: caller.cookie! } })).status).toBe(200);
    await signOut(caller, second.baseUrl);
    await expectSignedOut(caller);
  });
});

describe("signing out everywhere (DELETE /v1/sessions)", () => {
  it("ends every session of the person, this one included, and no one else's", async () => {
    const laptop = await signIn(tenant.emails.approver);
    const phone = await signIn(tenant.emails.approver, "guichet-demo", second.baseUrl);
    const colleague = await signIn(tenant.emails.admin);
    const ended = await api("/v1/sessions", {
      method: "DELETE",
      as: laptop,
      headers: { origin: new URL(baseUrl).origin },
    });
    expect(ended.status).toBe(200);
    expect(ended.body.data.ended_sessions).toBeGreaterThanOrEqual(2);
    await expectSignedOut(laptop);
    await expectSignedOut(phone, second.baseUrl);
    expect(await sessionIdOf(tenant.emails.approver)).toHaveLength(0);
    expect((await api("/v1/agents", { as: colleague })).status).toBe(200);
  });

  it("is for a signed-in person only: an API key gets 403 forbidden, no cookie 401, and nothing ends", async () => {
    const caller = await signIn(tenant.emails.owner);
    const byKey = await api("/v1/sessions", { method: "DELETE", as: { key: tenant.key } });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.code).toBe("forbidden");
    const anonymous = await api("/v1/sessions", { method: "DELETE" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe("unauthenticated");
    const crossSite = await api("/v1/sessions", {
      method: "DELETE",
      as: caller,
      headers: { origin: "https://evil.example" },
    });
    expect(crossSite.status).toBe(403);
    expect((await api("/v1/agents", { as: caller })).status).toBe(200);
  });
});

describe("membership changes take effect at the next request", () => {
  it("a role change: the same session carries the new role at once", async () => {
    const db = await testDb();
    const caller = await signIn(tenant.emails.developer);
    expect((await api("/v1/api_keys", { as: caller })).status).toBe(200);
    await db.member.update({ where: { email: tenant.emails.developer }, data: { role: "viewer" } });
    try {
      const refused = await api("/v1/api_keys", { as: caller });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe("forbidden");
      expect((await sessionOf(caller)).member.role).toBe("viewer");
      const onSecond = await fetch(`${second.baseUrl}/v1/api_keys`, { headers: { cookie: caller.cookie! } });
      expect(onSecond.status).toBe(403);
    } finally {
      await db.member.update({ where: { email: tenant.emails.developer }, data: { role: "developer" } });
    }
    expect((await api("/v1/api_keys", { as: caller })).status).toBe(200);
  });

  it("a removed member: 401 at once, and their sessions are gone", async () => {
    const db = await testDb();
    const { newId } = await import("@/lib/ids");
    const { hashPassword } = await import("@/lib/auth/passwords");
    const email = `leaving@${tenant.slug}.test`;
    const member = await db.member.create({
      data: {
        id: newId("mem"),
        organizationId: tenant.organizationId,
        email,
        name: "Partant",
        role: "admin",
        passwordHash: await hashPassword("guichet-demo"),
      },
    });
    const caller = await signIn(email);
    expect((await api("/v1/agents", { as: caller })).status).toBe(200);
    await db.member.delete({ where: { id: member.id } });
    await expectSignedOut(caller);
    await expectSignedOut(caller, second.baseUrl);
    expect(await db.memberSession.count({ where: { memberId: member.id } })).toBe(0);
  });
});

describe("session lifetime", () => {
  it("ends a session unused for longer than GUICHET_SESSION_IDLE_TIMEOUT, and keeps a recently used one alive", async () => {
    const db = await testDb();
    const idle = await signIn(tenant.emails.admin, "guichet-demo", second.baseUrl);
    const [idleRow] = (await sessionIdOf(tenant.emails.admin)).sort(
      (a, b) => b.lastSeenAt.getTime() - a.lastSeenAt.getTime(),
    );
    await db.memberSession.update({ where: { id: idleRow.id }, data: { lastSeenAt: new Date(Date.now() - 61_000) } });
    await expectSignedOut(idle, second.baseUrl);
    expect(await db.memberSession.count({ where: { id: idleRow.id } })).toBe(0);

    const active = await signIn(tenant.emails.admin, "guichet-demo", second.baseUrl);
    const [activeRow] = (await sessionIdOf(tenant.emails.admin)).sort(
      (a, b) => b.lastSeenAt.getTime() - a.lastSeenAt.getTime(),
    );
    const thirtySecondsAgo = new Date(Date.now() - 30_000);
    await db.memberSession.update({ where: { id: activeRow.id }, data: { lastSeenAt: thirtySecondsAgo } });
    expect((await fetch(`${second.baseUrl}/v1/agents`, { headers: { cookie: active.cookie! } })).status).toBe(200);
    const seen = await db.memberSession.findUniqueOrThrow({ where: { id: activeRow.id } });
    expect(seen.lastSeenAt.getTime()).toBeGreaterThan(thirtySecondsAgo.getTime() + 20_000);
  });

  it("ends a session past its lifetime whatever its activity", async () => {
    const db = await testDb();
    const caller = await signIn(tenant.emails.owner);
    const rows = await db.memberSession.findMany({
      where: { member: { email: tenant.emails.owner } },
      orderBy: { createdAt: "desc" },
      take: 1,
    });
    const defaultLifetime = rows[0].expiresAt.getTime() - rows[0].createdAt.getTime();
    expect(defaultLifetime).toBe(12 * 60 * 60 * 1000);
    await db.memberSession.update({ where: { id: rows[0].id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectSignedOut(caller);
  });
});
