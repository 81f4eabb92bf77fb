import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attemptSignIn, createTenant, startSuiteInstance, testDb, type Tenant, until } from "./helpers";
import { startApp } from "./server";

// Password guessing: wrong passwords are counted per account and per client
// address in the database, so every instance refuses a locked account — even
// with the right password. Attempts come from other loopback addresses
// (127.0.0.x) than the rest of the suite, which signs in from 127.0.0.1.

let tenant: Tenant;
/** A second instance on the same database, to read its log and to show the counts are shared. */
let second: Awaited<ReturnType<typeof startApp>>;

beforeAll(async () => {
  tenant = await createTenant("pro");
  second = await startSuiteInstance();
});

afterAll(async () => {
  await second?.stop();
});

const wrong = () => `Wr0ng-${randomBytes(6).toString("hex")}`;

describe("sign-in throttle", () => {
  it("after 25 wrong passwords the right one is refused (SignInThrottled) on every instance and from any address; another account is not", async () => {
    const email = tenant.emails.developer;
    const tried: string[] = [];
    const errors: (string | undefined)[] = [];
    for (let i = 0; i < 25; i++) {
      const password = wrong();
      tried.push(password);
      const attempt = await attemptSignIn(email, password, { at: second.baseUrl, localAddress: "127.0.0.3" });
      expect(attempt.status).toBe(401);
      expect(attempt.cookie).toBeUndefined();
      errors.push(attempt.error);
    }
    // Five wrong passwords are compared; the sixth locks the account and later ones are refused unread.
    expect(errors.slice(0, 6)).toEqual(Array(6).fill("CredentialsSignin"));
    expect(new Set(errors.slice(6))).toEqual(new Set(["SignInThrottled"]));

    const right = await attemptSignIn(email, "guichet-demo", { at: second.baseUrl, localAddress: "127.0.0.3" });
    expect(right).toMatchObject({ status: 401, error: "SignInThrottled" });
    expect(right.cookie).toBeUndefined();
    // The lock is the account's: the suite's own instance and another address refuse it as well.
    expect((await attemptSignIn(email, "guichet-demo", { localAddress: "127.0.0.4" })).error).toBe("SignInThrottled");
    const db = await testDb();
    const row = await db.signInThrottle.findUniqueOrThrow({ where: { key: `account:${email}` } });
    expect(row.failures).toBe(6);
    expect(row.lockedUntil!.getTime()).toBeGreaterThan(Date.now() + 10_000);

    // Another account from the same address signs in: six counted failures are far from the address's allowance.
    expect(
      (await attemptSignIn(tenant.emails.viewer, "guichet-demo", { at: second.baseUrl, localAddress: "127.0.0.3" }))
        .cookie,
    ).toBeDefined();

    // The log says who failed, from where and why — never with the password.
    const log = second.log();
    for (const password of tried) expect(log).not.toContain(password);
    const lines = log
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line));
    const failed = lines.filter((line) => line.event === "sign_in_failed" && line.email === email);
    expect(failed).toHaveLength(6);
    expect(failed[0]).toMatchObject({ level: "warn", address: "127.0.0.3", reason: "wrong_password", failures: 1 });
    expect(lines.filter((line) => line.event === "sign_in_refused" && line.email === email).length).toBe(20);
    expect(JSON.stringify(lines)).not.toMatch(/Wr0ng-/);
  });

  it("an unknown e-mail is counted and locked like a known one, so a lockout does not tell whether the account exists", async () => {
    const email = `nobody-${randomBytes(4).toString("hex")}@${tenant.slug}.test`;
    const errors: (string | undefined)[] = [];
    for (let i = 0; i < 7; i++)
      errors.push((await attemptSignIn(email, wrong(), { at: second.baseUrl, localAddress: "127.0.0.5" })).error);
    expect(errors).toEqual([...Array(6).fill("CredentialsSignin"), "SignInThrottled"]);
    // Log lines go out once per event-loop turn (lib/log.ts): the last one may follow its answer.
    const reasons = await until(async () => {
      const lines = second
        .log()
        .split("\n")
        .filter((line) => line.includes(email));
      return lines.length >= 7 ? lines.map((line) => JSON.parse(line).reason) : null;
    }, "the seventh attempt's log line");
    expect(reasons).toEqual([...Array(6).fill("unknown_account"), "throttled"]);
  });

  it("per address: past 20 failures from one address, every account is refused from it (forged address headers change nothing), not from others", async () => {
    const address = "127.0.0.6";
    for (let i = 0; i < 21; i++) {
      const attempt = await attemptSignIn(`spray-${i}-${randomBytes(3).toString("hex")}@${tenant.slug}.test`, wrong(), {
        at: second.baseUrl,
        localAddress: address,
      });
      expect(attempt.error).toBe("CredentialsSignin");
    }
    const forged = { "x-forwarded-for": "203.0.113.9", "x-guichet-peer-address": "198.51.100.1" };
    const refused = await attemptSignIn(tenant.emails.admin, "guichet-demo", {
      localAddress: address,
      headers: forged,
    });
    expect(refused).toMatchObject({ status: 401, error: "SignInThrottled" });
    const db = await testDb();
    expect(await db.signInThrottle.count({ where: { key: { in: ["ip:203.0.113.9", "ip:198.51.100.1"] } } })).toBe(0);
    expect((await db.signInThrottle.findUniqueOrThrow({ where: { key: `ip:${address}` } })).failures).toBe(21);
    expect(
      (await attemptSignIn(tenant.emails.admin, "guichet-demo", { localAddress: "127.0.0.7" })).cookie,
    ).toBeDefined();
  });

  it("an e-mail longer than any address is refused and counted on the client address only, not stored", async () => {
    const email = `${"x".repeat(5000)}@${tenant.slug}.test`;
    const attempt = await attemptSignIn(email, wrong(), { at: second.baseUrl, localAddress: "127.0.0.9" });
    expect(attempt).toMatchObject({ status: 401, error: "CredentialsSignin" });
    const db = await testDb();
    expect(await db.signInThrottle.count({ where: { key: { startsWith: "account:xxxx" } } })).toBe(0);
    expect((await db.signInThrottle.findUniqueOrThrow({ where: { key: "ip:127.0.0.9" } })).failures).toBe(1);
    expect(second.log()).not.toContain("x".repeat(300));
  });

  it("a successful sign-in clears the account's count", async () => {
    const email = tenant.emails.approver;
    for (let i = 0; i < 3; i++)
      expect((await attemptSignIn(email, wrong(), { localAddress: "127.0.0.8" })).error).toBe("CredentialsSignin");
    const db = await testDb();
    expect((await db.signInThrottle.findUniqueOrThrow({ where: { key: `account:${email}` } })).failures).toBe(3);
    expect((await attemptSignIn(email, "guichet-demo", { localAddress: "127.0.0.8" })).cookie).toBeDefined();
    expect(await db.signInThrottle.count({ where: { key: `account:${email}` } })).toBe(0);
  });
});
