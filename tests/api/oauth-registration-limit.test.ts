import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suiteNetwork, testDb } from "./helpers";
import { startApp } from "./server";

// Dynamic Client Registration is open to anyone, so it is limited per address
// (GUICHET_OAUTH_REGISTRATIONS_PER_HOUR). Two instances on one database: the
// limit must hold exactly across them, under concurrent requests, and a refusal
// is OAuth's own error with Retry-After, with nothing stored past the limit.

const LIMIT = 3;
type App = Awaited<ReturnType<typeof startApp>>;
let apps: App[] = [];

beforeAll(async () => {
  const env = {
    ...process.env,
    NODE_ENV: "production" as const,
    ...suiteNetwork(),
    GUICHET_OAUTH_REGISTRATIONS_PER_HOUR: String(LIMIT),
    // The address is read from our proxy's X-Forwarded-For: each test is its own client address,
    // apart from every other suite's registrations on this database.
    GUICHET_TRUST_PROXY: "1",
  };
  apps = await Promise.all([startApp(env), startApp(env)]);
});

afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
});

function anAddress(): string {
  const bytes = randomBytes(3);
  return `198.51.${bytes[0]}.${bytes[1] % 250}`;
}

async function registerFrom(app: App, address: string, name: string) {
  const response = await fetch(`${app.baseUrl}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": address },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: ["http://127.0.0.1:9/callback"],
      token_endpoint_auth_method: "none",
    }),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    contentType: response.headers.get("content-type"),
    body: (await response.json()) as Record<string, unknown>,
  };
}

async function storedFrom(address: string) {
  const db = await testDb();
  return db.oAuthClient.findMany({ where: { createdFrom: address }, select: { clientId: true, name: true } });
}

/** The window is a fixed hour: a burst that straddles its end would see two windows. */
async function awayFromTheHourBoundary() {
  const left = 3_600_000 - (Date.now() % 3_600_000);
  if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 1_000));
}

describe("the Dynamic Client Registration limit", () => {
  it("admits exactly the limit per address across instances, concurrently, and stores nothing beyond", async () => {
    await awayFromTheHourBoundary();
    const address = anAddress();
    const answers = await Promise.all(
      Array.from({ length: 9 }, (_, i) => registerFrom(apps[i % 2], address, `Client ${i}`)),
    );
    const admitted = answers.filter((answer) => answer.status === 201);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(admitted).toHaveLength(LIMIT);
    expect(refused).toHaveLength(9 - LIMIT);
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(answer.contentType).toContain("application/json");
      expect(answer.body.error).toBe("too_many_requests");
      expect(typeof answer.body.error_description).toBe("string");
      expect(answer.body).not.toHaveProperty("client_id");
      const seconds = Number(answer.retryAfter);
      expect(Number.isInteger(seconds)).toBe(true);
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThanOrEqual(3600);
    }
    const stored = await storedFrom(address);
    expect(stored).toHaveLength(LIMIT);
    expect(stored.map((row) => row.clientId).sort()).toEqual(admitted.map((answer) => answer.body.client_id).sort());

    // Later requests in the window are refused too, whichever instance answers.
    for (const app of apps) expect((await registerFrom(app, address, "Encore un")).status).toBe(429);
    expect(await storedFrom(address)).toHaveLength(LIMIT);
  });

  it("counts per address: another address still registers", async () => {
    await awayFromTheHourBoundary();
    const first = anAddress();
    let second = anAddress();
    while (second === first) second = anAddress();
    for (let i = 0; i < LIMIT; i++) expect((await registerFrom(apps[0], first, `A${i}`)).status).toBe(201);
    expect((await registerFrom(apps[1], first, "A de trop")).status).toBe(429);
    const other = await registerFrom(apps[1], second, "B");
    expect(other.status).toBe(201);
    expect(other.retryAfter).toBeNull();
    expect(await storedFrom(first)).toHaveLength(LIMIT);
    expect(await storedFrom(second)).toHaveLength(1);
  });
});
