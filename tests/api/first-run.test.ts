import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signIn, type Caller } from "./helpers";
import { createTestDatabase, run, startApp, testNetwork, type TestDatabase } from "./server";

// The first run on an empty database (reference data only, as `npm start` with
// its own DATABASE_URL leaves it): the first visitor creates the organization and
// its owner, once; later organizations come from the instance owner, or from
// public sign-up behind GUICHET_ALLOW_SIGNUP=1. Its own database and servers.

const kind = process.env.TEST_DB === "postgresql" ? "postgresql" : "sqlite";
const seed = ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "prisma/seed.ts"];
let database: TestDatabase;
let env: NodeJS.ProcessEnv;
let app: Awaited<ReturnType<typeof startApp>>;
/** Whichever of the simultaneous first runs won. */
let firstOwnerEmail = "";

beforeAll(async () => {
  database = await createTestDatabase(kind);
  env = {
    ...process.env,
    NODE_ENV: "production",
    DATABASE_URL: database.url,
    GUICHET_DATA_DIR: database.dataDir,
    ...testNetwork(),
  };
  delete env.GUICHET_ALLOW_SIGNUP;
  await run(process.execPath, ["scripts/migrate.mjs"], env);
  await run(process.execPath, [...seed, "--reference-only"], env);
  app = await startApp(env);
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await database?.drop();
});

async function call(at: string, path: string, init: { method?: string; json?: unknown; as?: Caller } = {}) {
  const headers: Record<string, string> = {};
  if (init.json !== undefined) headers["content-type"] = "application/json";
  if (init.as?.cookie) headers.cookie = init.as.cookie;
  const response = await fetch(`${at}${path}`, {
    method: init.method ?? (init.json !== undefined ? "POST" : "GET"),
    headers,
    body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
  });
  return { status: response.status, body: (await response.json()) as any };
}

const owner = { organization: "Mutuelle Bréhat", name: "Camille Martin", password: "une phrase de passe longue" };

describe("the first run", () => {
  it("is open on an empty database; bad bodies are typed 4xx and create nothing", async () => {
    expect((await call(app.baseUrl, "/api/setup")).body.data).toEqual({ first_run: true, signup: false });
    const cases: Array<[unknown, number, string, string]> = [
      [{ ...owner, email: "pas-une-adresse" }, 400, "invalid_parameter", "email"],
      [{ ...owner, email: "a@b.example", password: "court" }, 400, "invalid_parameter", "password"],
      [{ ...owner, email: "a@b.example", password: "aaaaaaaaaaaa" }, 400, "invalid_parameter", "password"],
      [{ ...owner, email: "a@b.example", password: "é".repeat(40) + "abcd" }, 400, "invalid_parameter", "password"],
      [{ ...owner, email: "a@b.example", organization: " " }, 400, "invalid_parameter", "organization"],
      [{ organization: "X", email: "a@b.example", password: owner.password }, 400, "invalid_parameter", "name"],
      [{ ...owner, email: "a@b.example", role: "owner" }, 400, "unknown_parameter", "role"],
    ];
    for (const [body, status, code, field] of cases) {
      const response = await call(app.baseUrl, "/api/setup", { json: body });
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.error.code).toBe(code);
      expect(response.body.error.errors.map((e: any) => e.field)).toContain(field);
    }
    const badJson = await fetch(`${app.baseUrl}/api/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(badJson.status).toBe(400);
    expect((await call(app.baseUrl, "/api/setup")).body.data.first_run).toBe(true);
  });

  it("creates one organization from simultaneous attempts, whose owner signs in as the instance owner", async () => {
    const attempts = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        call(app.baseUrl, "/api/setup", { json: { ...owner, email: `Owner${i}@Brehat.example` } }),
      ),
    );
    const created = attempts.filter((a) => a.status === 201);
    expect(created).toHaveLength(1);
    for (const refused of attempts.filter((a) => a.status !== 201)) {
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe("already_set_up");
    }
    const { organization, owner: person } = created[0].body.data;
    expect(organization).toMatchObject({ name: "Mutuelle Bréhat", slug: "mutuelle-brehat", plan: "pro" });
    expect(person).toMatchObject({ email: expect.stringMatching(/^owner\d@brehat\.example$/), instance_owner: true });
    expect(JSON.stringify(created[0].body)).not.toContain(owner.password);

    firstOwnerEmail = person.email;
    const session = await signIn(person.email, owner.password, app.baseUrl);
    const listed = await call(app.baseUrl, "/v1/organizations", { as: session });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      {
        id: organization.id,
        name: "Mutuelle Bréhat",
        slug: "mutuelle-brehat",
        plan: "pro",
        member_count: 1,
        created_at: expect.any(String),
      },
    ]);
    expect((await call(app.baseUrl, "/v1/models", { as: session })).status).toBe(200);

    // The new organization's trail starts with its creation, by its owner; never the password.
    const trail = await call(app.baseUrl, "/v1/audit_events?action=organization.created", { as: session });
    expect(trail.status).toBe(200);
    expect(trail.body.data).toEqual([
      {
        id: expect.any(String),
        action: "organization.created",
        actor: { type: "member", id: person.id, label: person.email },
        target: { type: "organization", id: organization.id },
        details: { via: "first_run", plan: "pro", owner: person.email },
        created_at: expect.any(String),
      },
    ]);
    expect(JSON.stringify(trail.body)).not.toContain(owner.password);
  });

  it("refuses any later attempt (sign-up is off by default) and closes the page", async () => {
    expect((await call(app.baseUrl, "/api/setup")).body.data).toEqual({ first_run: false, signup: false });
    const again = await call(app.baseUrl, "/api/setup", { json: { ...owner, email: "late@brehat.example" } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("already_set_up");
    const page = await fetch(`${app.baseUrl}/creer-organisation`, { redirect: "manual" });
    expect(page.status).toBe(307);
    expect(page.headers.get("location")).toContain("/connexion");
    await expect(signIn("late@brehat.example", owner.password, app.baseUrl)).rejects.toThrow(/sign-in failed/);
  });

  it("refuses the demo seed on this database, which holds a real organization", async () => {
    await expect(run(process.execPath, seed, env)).rejects.toThrow(/Refusing to seed the demo/);
    await expect(signIn("owner@acme.test", "guichet-demo", app.baseUrl)).rejects.toThrow(/sign-in failed/);
  });
});

describe("later organizations", () => {
  const firstOwner = () => signIn(firstOwnerEmail, owner.password, app.baseUrl);

  it("the instance owner creates an organization with its plan and owner, and reassigns plans; nobody else may", async () => {
    const instanceOwner = await firstOwner();
    const body = {
      name: "Coopérative Ouessant",
      plan: "free",
      owner: { name: "Yann Le Gall", email: "yann@ouessant.example", password: "une autre phrase longue" },
    };
    const created = await call(app.baseUrl, "/v1/organizations", { json: body, as: instanceOwner });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: "Coopérative Ouessant", plan: "free", member_count: 1 });
    const id = created.body.data.id;

    const taken = await call(app.baseUrl, "/v1/organizations", { json: { ...body, name: "Autre" }, as: instanceOwner });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe("email_taken");
    const badPlan = await call(app.baseUrl, `/v1/organizations/${id}`, {
      method: "PATCH",
      json: { plan: "platinum" },
      as: instanceOwner,
    });
    expect(badPlan.status).toBe(400);
    expect(badPlan.body.error.errors[0].field).toBe("plan");
    const missing = await call(app.baseUrl, "/v1/organizations/org_nope", {
      method: "PATCH",
      json: { plan: "pro" },
      as: instanceOwner,
    });
    expect(missing.status).toBe(404);
    const moved = await call(app.baseUrl, `/v1/organizations/${id}`, {
      method: "PATCH",
      json: { plan: "pro" },
      as: instanceOwner,
    });
    expect(moved.body.data.plan).toBe("pro");

    // The new organization's owner is an owner there, not of the instance.
    const yann = await signIn("yann@ouessant.example", "une autre phrase longue", app.baseUrl);
    for (const attempt of [
      call(app.baseUrl, "/v1/organizations", { as: yann }),
      call(app.baseUrl, "/v1/organizations", { json: { ...body, name: "Pirate" }, as: yann }),
      call(app.baseUrl, `/v1/organizations/${id}`, { method: "PATCH", json: { plan: "free" }, as: yann }),
    ]) {
      const response = await attempt;
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe("forbidden");
    }
    // Recorded in the new organization's trail, by the instance owner; not in the instance owner's own.
    const trail = await call(app.baseUrl, "/v1/audit_events?action=organization.created", { as: yann });
    expect(trail.body.data).toHaveLength(1);
    expect(trail.body.data[0]).toMatchObject({
      actor: { type: "member", label: firstOwnerEmail },
      target: { type: "organization", id },
      details: { via: "instance_owner", plan: "free", owner: "yann@ouessant.example" },
    });
    const own = await call(app.baseUrl, "/v1/audit_events?action=organization.created", { as: instanceOwner });
    expect(own.body.data.map((event: any) => event.target.id)).not.toContain(id);
    const after = await call(app.baseUrl, "/v1/organizations", { as: instanceOwner });
    expect(after.body.data.map((o: any) => [o.name, o.plan])).toEqual([
      ["Mutuelle Bréhat", "pro"],
      ["Coopérative Ouessant", "pro"],
    ]);
  });

  it("public sign-up creates an organization only with GUICHET_ALLOW_SIGNUP=1", async () => {
    const open = await startApp({ ...env, GUICHET_ALLOW_SIGNUP: "1" });
    try {
      expect((await call(open.baseUrl, "/api/setup")).body.data).toEqual({ first_run: false, signup: true });
      const signup = { organization: "Acme", name: "Inès", email: "ines@acme.example", password: owner.password };
      const created = await call(open.baseUrl, "/api/setup", { json: signup });
      expect(created.status).toBe(201);
      // "acme" is the demo's slug: a real organization named so gets another one.
      expect(created.body.data.organization).toMatchObject({ name: "Acme", plan: "free" });
      expect(created.body.data.organization.slug).toMatch(/^acme-[0-9a-f]{6}$/);
      expect(created.body.data.owner.instance_owner).toBe(false);
      const twice = await call(open.baseUrl, "/api/setup", { json: signup });
      expect(twice.status).toBe(409);
      expect(twice.body.error.code).toBe("email_taken");
      const ines = await signIn("ines@acme.example", owner.password, open.baseUrl);
      expect((await call(open.baseUrl, "/v1/organizations", { as: ines })).status).toBe(403);
      const trail = await call(open.baseUrl, "/v1/audit_events", { as: ines });
      expect(trail.body.data.map((event: any) => [event.action, event.actor.label, event.details.via])).toEqual([
        ["sign_in.succeeded", "ines@acme.example", undefined],
        ["organization.created", "ines@acme.example", "signup"],
      ]);
    } finally {
      await open.stop();
    }
  });

  it("never gives a new organization a slug GUICHET_PRIVATE_ORIGINS grants by name (it would inherit the grant)", async () => {
    const granted = "http://127.0.0.1:4999";
    const open = await startApp({
      ...env,
      GUICHET_ALLOW_SIGNUP: "1",
      GUICHET_PRIVATE_ORIGINS: `${granted}=initech,http://10.20.30.40=*`,
    });
    try {
      const signup = {
        organization: "Initech",
        name: "Peter",
        email: "peter@initech.example",
        password: owner.password,
      };
      const created = await call(open.baseUrl, "/api/setup", { json: signup });
      expect(created.status).toBe(201);
      expect(created.body.data.organization.slug).toMatch(/^initech-[0-9a-f]{6}$/);
      const peter = await signIn("peter@initech.example", owner.password, open.baseUrl);
      const origins = await call(open.baseUrl, "/v1/network/private_origins", { as: peter });
      expect(origins.body.data.origins).toEqual(["http://10.20.30.40"]);
    } finally {
      await open.stop();
    }
  });

  it("limits sign-ups per client address: past the limit, 429 rate_limited and nothing created", async () => {
    // Behind a trusted proxy, so this test counts on addresses of its own (the suite's others share 127.0.0.1).
    const open = await startApp({
      ...env,
      GUICHET_ALLOW_SIGNUP: "1",
      GUICHET_SIGNUP_PER_HOUR: "2",
      GUICHET_TRUST_PROXY: "1",
    });
    const from = (address: string, email: string) =>
      fetch(`${open.baseUrl}/api/setup`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": address },
        body: JSON.stringify({ organization: `Org ${email}`, name: "Lou", email, password: owner.password }),
      }).then(async (response) => ({
        status: response.status,
        headers: response.headers,
        body: (await response.json()) as any,
      }));
    try {
      const address = `198.51.100.${Math.floor(Math.random() * 200) + 1}`;
      expect((await from(address, "lou1@limit.example")).status).toBe(201);
      expect((await from(address, "lou2@limit.example")).status).toBe(201);
      const limited = await from(address, "lou3@limit.example");
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe("rate_limited");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      // Another address still may.
      expect((await from("203.0.113.9", "lou4@limit.example")).status).toBe(201);
    } finally {
      await open.stop();
    }
    const instanceOwner = await firstOwner();
    const names = (await call(app.baseUrl, "/v1/organizations", { as: instanceOwner })).body.data.map(
      (o: any) => o.name,
    );
    expect(names).toContain("Org lou1@limit.example");
    expect(names).toContain("Org lou4@limit.example");
    expect(names).not.toContain("Org lou3@limit.example");
    await expect(signIn("lou3@limit.example", owner.password, app.baseUrl)).rejects.toThrow(/sign-in failed/);
  }, 180_000);
});
