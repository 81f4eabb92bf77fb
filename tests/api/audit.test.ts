import { beforeAll, describe, expect, it } from "vitest";
import { api, attemptSignIn, baseUrl, createTenant, signIn, testDb, type Tenant } from "./helpers";
import { auditEventFor, auditPage } from "./audit-helpers";

// The audit trail: who did what, readable by owners and admins of the
// organization only, filtered and paged, and append-only in the database itself.

let tenant: Tenant;
let other: Tenant;
const origin = () => ({ origin: new URL(baseUrl).origin });

beforeAll(async () => {
  tenant = await createTenant("pro");
  other = await createTenant("pro");
});

describe("API keys", () => {
  it("records who created and who revoked a key, with its name and scopes but never its secret", async () => {
    const admin = await tenant.as("admin");
    const created = await api("/v1/api_keys", {
      as: admin,
      json: { name: "Intégration CI", scopes: ["agents:read"] },
      headers: origin(),
    });
    expect(created.status).toBe(201);
    const { id, secret } = created.body.data;
    const event = await auditEventFor(admin, "api_key.created", id);
    const db = await testDb();
    const adminRow = await db.member.findUniqueOrThrow({ where: { email: tenant.emails.admin } });
    expect(event.actor).toEqual({ type: "member", id: adminRow.id, label: tenant.emails.admin });
    expect(event.target).toEqual({ type: "api_key", id });
    expect(event.details).toEqual({ name: "Intégration CI", scopes: ["agents:read"] });
    const stored = await db.auditEvent.findMany({ where: { targetId: id } });
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(JSON.stringify(stored)).not.toContain(secret.slice(12));

    const owner = await tenant.as("owner");
    expect((await api(`/v1/api_keys/${id}`, { method: "DELETE", as: owner, headers: origin() })).status).toBe(200);
    const revoked = await auditEventFor(owner, "api_key.revoked", id);
    expect(revoked.actor.label).toBe(tenant.emails.owner);
    // Revoking again changes nothing and records nothing more.
    expect((await api(`/v1/api_keys/${id}`, { method: "DELETE", as: owner, headers: origin() })).status).toBe(200);
    await auditEventFor(owner, "api_key.revoked", id);
  });
});

describe("sign-in", () => {
  it("records a success and a wrong password with the e-mail tried, never the password", async () => {
    const email = tenant.emails.viewer;
    const db = await testDb();
    const viewer = await db.member.findUniqueOrThrow({ where: { email } });
    expect((await attemptSignIn(email, "not-the-password-42")).error).toBe("CredentialsSignin");
    await signIn(email);
    const owner = await tenant.as("owner");
    const failed = await auditEventFor(owner, "sign_in.failed", viewer.id);
    expect(failed.actor).toEqual({ type: "anonymous", id: null, label: email });
    expect(failed.details).toMatchObject({ email, reason: "wrong_password" });
    expect(typeof failed.details.address).toBe("string");
    const succeeded = await auditEventFor(owner, "sign_in.succeeded", viewer.id);
    expect(succeeded.actor).toEqual({ type: "member", id: viewer.id, label: email });
    const stored = JSON.stringify(await db.auditEvent.findMany({ where: { targetId: viewer.id } }));
    expect(stored).not.toContain("not-the-password-42");
    expect(stored).not.toContain("guichet-demo");
  });

  it("records an attempt on an unknown e-mail outside every organization", async () => {
    const email = `nobody-${Date.now()}@nowhere.test`;
    expect((await attemptSignIn(email, "whatever-password-1")).error).toBe("CredentialsSignin");
    const db = await testDb();
    const rows = await db.auditEvent.findMany({ where: { actorLabel: email } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ organizationId: null, action: "sign_in.failed", targetId: null });
    expect(rows[0].details).toMatchObject({ email, reason: "unknown_account" });
    const owner = await tenant.as("owner");
    expect(
      (await auditPage(owner, { action: "sign_in.failed", limit: "100" })).data.map((e) => e.actor.label),
    ).not.toContain(email);
  });
});

describe("who may read it", () => {
  it.each(["developer", "approver", "viewer"] as const)("refuses a %s with 403 forbidden", async (role) => {
    const response = await api("/v1/audit_events", { as: await tenant.as(role) });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe("forbidden");
  });

  it("refuses an API key (session only) and an anonymous caller", async () => {
    const withKey = await api("/v1/audit_events", { as: { key: tenant.key } });
    expect(withKey.status).toBe(403);
    expect(withKey.body.error.code).toBe("forbidden");
    const anonymous = await api("/v1/audit_events");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe("unauthenticated");
  });

  it("shows an organization only its own events, even when filtered on another's target", async () => {
    const theirs = await api("/v1/api_keys", {
      as: await other.as("owner"),
      json: { name: "Autre", scopes: ["agents:read"] },
      headers: origin(),
    });
    expect(theirs.status).toBe(201);
    const owner = await tenant.as("owner");
    expect((await auditPage(owner, { target: theirs.body.data.id })).data).toEqual([]);
    const all = await auditPage(owner, { limit: "100" });
    const db = await testDb();
    const ours = new Set(
      (await db.auditEvent.findMany({ where: { organizationId: tenant.organizationId }, select: { id: true } })).map(
        (row) => row.id,
      ),
    );
    expect(all.data.length).toBeGreaterThan(0);
    expect(all.data.every((event) => ours.has(event.id))).toBe(true);
  });
});

describe("filters and paging", () => {
  it("filters by actor, action, target type and date range, and pages with the cursor", async () => {
    const owner = await tenant.as("owner");
    const db = await testDb();
    const ownerRow = await db.member.findUniqueOrThrow({ where: { email: tenant.emails.owner } });
    // From now exactly: an earlier test of this file may have created a key within the last second.
    const start = new Date().toISOString();
    const ids: string[] = [];
    for (const name of ["k1", "k2", "k3"]) {
      const created = await api("/v1/api_keys", {
        as: owner,
        json: { name, scopes: ["runs:read"] },
        headers: origin(),
      });
      ids.push(created.body.data.id);
    }
    const byActor = await auditPage(owner, { actor: ownerRow.id, action: "api_key.created", from: start });
    expect(byActor.data.map((event) => event.target?.id)).toEqual([...ids].reverse());
    expect(
      (await auditPage(owner, { target_type: "api_key", action: "api_key.created", from: start })).data,
    ).toHaveLength(3);
    expect(
      (await auditPage(owner, { action: "api_key.created", to: start, from: "2000-01-01T00:00:00Z" })).data.map(
        (e) => e.target?.id,
      ),
    ).not.toContain(ids[0]);

    const first = await auditPage(owner, { action: "api_key.created", from: start, limit: "2" });
    expect(first.data).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await auditPage(owner, {
      action: "api_key.created",
      from: start,
      limit: "2",
      cursor: first.next_cursor!,
    });
    expect(second.data.map((event) => event.target?.id)).toEqual([ids[0]]);
    expect(second.next_cursor).toBeNull();
  });

  it.each([
    ["action", "api_key.exploded", "invalid_parameter"],
    ["from", "yesterday", "invalid_parameter"],
    ["cursor", "not-a-cursor", "invalid_parameter"],
    ["limit", "1000", "invalid_parameter"],
    ["secret", "1", "unknown_parameter"],
  ])("answers 400 for %s=%s", async (name, value, code) => {
    const response = await api(`/v1/audit_events?${name}=${encodeURIComponent(value)}`, {
      as: await tenant.as("admin"),
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe(code);
  });
});

// SQLite's RAISE(ABORT) reaches Prisma's ORM calls as a constraint violation (the trigger's text is dropped);
// PostgreSQL's exception keeps it. Either way the statement fails, and the row is checked unchanged afterwards.
const REFUSED = /append-only|constraint/i;

describe("append-only storage", () => {
  async function anEvent() {
    const db = await testDb();
    return db.auditEvent.findFirstOrThrow({ where: { organizationId: tenant.organizationId } });
  }

  it("refuses an update and a delete, through Prisma and in plain SQL, and keeps the row as it was", async () => {
    const db = await testDb();
    const event = await anEvent();
    await expect(
      db.auditEvent.update({ where: { id: event.id }, data: { action: "api_key.revoked" } }),
    ).rejects.toThrow(REFUSED);
    await expect(
      db.auditEvent.updateMany({ where: { id: event.id }, data: { actorLabel: "someone@else" } }),
    ).rejects.toThrow(REFUSED);
    await expect(db.auditEvent.delete({ where: { id: event.id } })).rejects.toThrow(REFUSED);
    await expect(db.auditEvent.deleteMany({ where: { organizationId: tenant.organizationId } })).rejects.toThrow(
      REFUSED,
    );
    await expect(
      db.$executeRawUnsafe(`UPDATE "AuditEvent" SET "action" = 'x' WHERE "id" = '${event.id}'`),
    ).rejects.toThrow(REFUSED);
    await expect(db.$executeRawUnsafe(`DELETE FROM "AuditEvent"`)).rejects.toThrow(REFUSED);
    expect(await db.auditEvent.findUniqueOrThrow({ where: { id: event.id } })).toEqual(event);
  });

  it("lets the retention purge delete only what is older than the retention, and leaves no gate open", async () => {
    const db = await testDb();
    const { newId } = await import("@/lib/ids");
    const { purgeExpiredAuditEvents } = await import("@/lib/audit/purge");
    const now = new Date();
    const day = 24 * 60 * 60 * 1000;
    const old = await db.auditEvent.create({
      data: {
        id: newId("aud"),
        organizationId: tenant.organizationId,
        actorType: "system",
        action: "agent.created",
        details: {},
        createdAt: new Date(now.getTime() - 40 * day),
      },
    });
    const recent = await db.auditEvent.create({
      data: {
        id: newId("aud"),
        organizationId: tenant.organizationId,
        actorType: "system",
        action: "agent.created",
        details: {},
        createdAt: new Date(now.getTime() - 20 * day),
      },
    });
    const before = await db.auditEvent.count();
    expect(await purgeExpiredAuditEvents(now, 30)).toBe(1);
    expect(await db.auditEvent.findUnique({ where: { id: old.id } })).toBeNull();
    expect(await db.auditEvent.findUnique({ where: { id: recent.id } })).not.toBeNull();
    expect(await db.auditEvent.count()).toBe(before - 1);
    expect(await db.auditPurgeGate.count()).toBe(0);
    // The gate was the purge's own: the recent row still cannot be deleted.
    await expect(db.auditEvent.delete({ where: { id: recent.id } })).rejects.toThrow(REFUSED);
  });
});

describe("CSV export", () => {
  /** Parses the export's RFC 4180 text (every cell quoted) into rows of cells, failing on anything else. */
  function parseCsv(text: string): string[][] {
    // fetch's text() drops the byte-order mark the file starts with.
    const cell = /"((?:[^"]|"")*)"(,|\r\n)/y;
    let consumed = 0;
    const rows: string[][] = [];
    let row: string[] = [];
    for (let match = cell.exec(text); match; match = cell.exec(text)) {
      row.push(match[1].replace(/""/g, '"'));
      if (match[2] === "\r\n") {
        rows.push(row);
        row = [];
      }
      consumed = cell.lastIndex;
    }
    expect(consumed).toBe(text.length);
    return rows;
  }

  async function exportCsv(caller: Awaited<ReturnType<Tenant["as"]>>, query: Record<string, string> = {}) {
    return api<string>(`/v1/audit_events/export?${new URLSearchParams(query)}`, { as: caller });
  }

  it("exports every matching event, past one page, with the filters, the French label and neutralised formulas", async () => {
    const owner = await tenant.as("owner");
    const start = new Date().toISOString();
    const names = ['=HYPERLINK("http://evil.example","clic")', "+33 6 12", "-1+1", "@SUM(A1:A2)", 'Clé, "CI"'];
    const ids: string[] = [];
    for (const name of names) {
      const created = await api("/v1/api_keys", {
        as: owner,
        json: { name, scopes: ["runs:read"] },
        headers: origin(),
      });
      expect(created.status).toBe(201);
      ids.push(created.body.data.id);
    }
    // One revocation, which the action filter leaves out.
    expect((await api(`/v1/api_keys/${ids[0]}`, { method: "DELETE", as: owner, headers: origin() })).status).toBe(200);

    const response = await exportCsv(owner, { action: "api_key.created", from: start });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(
      new RegExp(`^attachment; filename="audit-${tenant.slug}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`),
    );
    const [header, ...rows] = parseCsv(response.body);
    expect(header).toEqual([
      "date",
      "action",
      "libellé",
      "type d’acteur",
      "acteur",
      "identifiant de l’acteur",
      "type de cible",
      "cible",
      "détails",
    ]);
    expect(rows.map((row) => row[7])).toEqual([...ids].reverse());
    expect(rows.every((row) => row[1] === "api_key.created" && row[2] === "Clé API créée")).toBe(true);
    expect(rows.every((row) => row[4] === tenant.emails.owner)).toBe(true);
    const detailsOf = (id: string) => rows.find((row) => row[7] === id)![8];
    // Details are JSON, starting with {: the names inside are data, not a cell's start.
    expect(JSON.parse(detailsOf(ids[4]))).toEqual({ name: 'Clé, "CI"', scopes: ["runs:read"] });
    expect(response.body).toContain('"{""name"":""=HYPERLINK(');

    // A cell that starts with a formula character is prefixed; seen on the actor column with a crafted e-mail.
    const db = await testDb();
    const { recordAudit } = await import("@/lib/audit/record");
    await recordAudit({
      organizationId: tenant.organizationId,
      actor: { type: "anonymous", label: "=cmd|'/c calc'!A1" },
      action: "sign_in.failed",
      details: { email: "+danger@x.test", reason: "wrong_password" },
    });
    const failed = parseCsv((await exportCsv(owner, { action: "sign_in.failed", from: start })).body).slice(1);
    expect(failed.map((row) => row[4])).toEqual(["'=cmd|'/c calc'!A1"]);
    expect(
      await db.auditEvent.count({
        where: { organizationId: tenant.organizationId, actorLabel: { startsWith: "=cmd" } },
      }),
    ).toBe(1);
  });

  it("exports more than a batch, newest first, without duplicates", async () => {
    const db = await testDb();
    const { newId } = await import("@/lib/ids");
    const target = `bulk-${Date.now()}`;
    const base = Date.now() - 60_000;
    await db.auditEvent.createMany({
      data: Array.from({ length: 1203 }, (_, i) => ({
        id: newId("aud"),
        organizationId: tenant.organizationId,
        actorType: "system",
        action: "agent.updated",
        targetType: "agent",
        targetId: target,
        details: { fields: ["name"] },
        // Pairs share a date: the (date, id) order must still take each exactly once.
        createdAt: new Date(base + Math.floor(i / 2) * 10),
      })),
    });
    const rows = parseCsv((await exportCsv(await tenant.as("admin"), { target })).body).slice(1);
    expect(rows).toHaveLength(1203);
    const dates = rows.map((row) => Date.parse(row[0]));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
    expect(rows.every((row) => row[7] === target && row[2] === "Agent modifié")).toBe(true);
  });

  it("never includes another organization's events", async () => {
    const theirs = await api("/v1/api_keys", {
      as: await other.as("owner"),
      json: { name: "Chez les autres", scopes: ["agents:read"] },
      headers: origin(),
    });
    expect(theirs.status).toBe(201);
    const owner = await tenant.as("owner");
    const filtered = parseCsv((await exportCsv(owner, { target: theirs.body.data.id })).body);
    expect(filtered).toHaveLength(1);
    const all = (await exportCsv(owner)).body;
    expect(all).not.toContain(theirs.body.data.id);
    expect(all).not.toContain("Chez les autres");
    expect(all).not.toContain(other.emails.owner);
  });

  it.each(["developer", "approver", "viewer"] as const)("refuses a %s with 403 forbidden", async (role) => {
    const response = await exportCsv(await tenant.as(role));
    expect(response.status).toBe(403);
    expect((response.body as unknown as { error: { code: string } }).error.code).toBe("forbidden");
  });

  it("refuses an API key, a bad filter and a paging parameter", async () => {
    const withKey = await api("/v1/audit_events/export", { as: { key: tenant.key } });
    expect(withKey.status).toBe(403);
    expect(withKey.body.error.code).toBe("forbidden");
    const admin = await tenant.as("admin");
    for (const [query, code] of [
      [{ action: "api_key.exploded" }, "invalid_parameter"],
      [{ to: "demain" }, "invalid_parameter"],
      [{ cursor: "abc" }, "unknown_parameter"],
    ] as const) {
      const response = await exportCsv(admin, query);
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect((response.body as unknown as { error: { code: string } }).error.code).toBe(code);
    }
  });
});
