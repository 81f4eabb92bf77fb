import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { control, startTestCrm, type TestCrm } from "@/connectors/acme-crm/test-helpers";
import {
  closeMcpSessions,
  dropMcpSessions,
  openMcpSessionCount,
  withMcpSession,
  type McpSessionScope,
  type McpSessionTarget,
} from "./session-pool";

// The upstream session pool against the real CRM Acme in its stateful mode
// (each initialize opens a session the server can expire), counting on the
// server's side how often Guichet initializes.

const TOKEN = "crm-token-for-pool-tests";
let crm: TestCrm;
let stateless: TestCrm;

const target = (server: TestCrm, token: string | null = TOKEN): McpSessionTarget => ({
  url: server.crm.url,
  token,
  net: { privateOrigins: [new URL(server.crm.url).origin] },
});
const acme: McpSessionScope = { organizationId: "org_acme", serverId: 1 };
const globex: McpSessionScope = { organizationId: "org_globex", serverId: 1 };

async function getCustomer(scope: McpSessionScope, to: McpSessionTarget): Promise<unknown> {
  const result = await withMcpSession(scope, to, new AbortController().signal, (client) =>
    client.callTool({ name: "get_customer", arguments: { customer_id: "C-1842" } }),
  );
  expect(result.isError).toBeFalsy();
  return result.structuredContent;
}

const sessions = (server: TestCrm) =>
  control(server.crm.baseUrl, "GET", "/__control/sessions") as Promise<{
    initializations: number;
    open_sessions: number;
    terminated: number;
  }>;

beforeAll(async () => {
  crm = await startTestCrm({ token: TOKEN, sessions: true });
  stateless = await startTestCrm({ token: TOKEN });
});
afterEach(async () => {
  await closeMcpSessions();
  await control(crm.crm.baseUrl, "POST", "/__control/sessions/expire");
});
afterAll(async () => {
  await crm?.close();
  await stateless?.close();
});

describe("upstream MCP session pool", () => {
  it("serves N calls, sequential and concurrent, on one session", async () => {
    const before = await sessions(crm);
    for (let i = 0; i < 5; i++) await getCustomer(acme, target(crm));
    await Promise.all(Array.from({ length: 8 }, () => getCustomer(acme, target(crm))));
    const after = await sessions(crm);
    expect(after.initializations - before.initializations).toBe(1);
    expect(after.open_sessions).toBe(1);
    expect(openMcpSessionCount()).toBe(1);
  });

  it("initializes once for a stateless server too", async () => {
    const before = await sessions(stateless);
    for (let i = 0; i < 4; i++) await getCustomer(acme, target(stateless));
    expect((await sessions(stateless)).initializations - before.initializations).toBe(1);
  });

  it("re-initializes once, transparently, when the server expired the session", async () => {
    await getCustomer(acme, target(crm));
    const before = await sessions(crm);
    expect(await control(crm.crm.baseUrl, "POST", "/__control/sessions/expire")).toEqual({ expired: 1 });
    // The call itself succeeds: the 404 is answered by a new session, not passed on.
    await getCustomer(acme, target(crm));
    await getCustomer(acme, target(crm));
    const after = await sessions(crm);
    expect(after.initializations - before.initializations).toBe(1);
    expect(after.open_sessions).toBe(1);
  });

  it("does not loop when the server keeps refusing the new session", async () => {
    // A session whose every request answers 404 (expired between initialize and the call) fails after one retry.
    let expiries = 0;
    const before = await sessions(crm);
    const error = await withMcpSession(acme, target(crm), new AbortController().signal, async (client) => {
      expiries++;
      await control(crm.crm.baseUrl, "POST", "/__control/sessions/expire");
      return client.callTool({ name: "get_customer", arguments: { customer_id: "C-1842" } });
    }).catch((e: unknown) => e);
    expect((error as { code?: number }).code).toBe(404);
    expect(expiries).toBe(2);
    expect((await sessions(crm)).initializations - before.initializations).toBe(2);
  });

  it("drops the session when the credential changes, and never reuses it", async () => {
    await getCustomer(acme, target(crm));
    const before = await sessions(crm);
    const refused = await withMcpSession(acme, target(crm, "another-token"), new AbortController().signal, (c) =>
      c.callTool({ name: "get_customer", arguments: { customer_id: "C-1842" } }),
    ).catch((e: unknown) => e);
    expect((refused as { code?: number }).code).toBe(401);
    await expect.poll(async () => (await sessions(crm)).terminated - before.terminated).toBe(1);
    expect((await sessions(crm)).open_sessions).toBe(0);
    // Back to the right token: a new session, not the closed one.
    await getCustomer(acme, target(crm));
    expect((await sessions(crm)).initializations - before.initializations).toBe(1);
  });

  it("never shares a session between organizations, even for the same server and token", async () => {
    const before = await sessions(crm);
    await Promise.all([getCustomer(acme, target(crm)), getCustomer(globex, target(crm))]);
    await getCustomer(acme, target(crm));
    await getCustomer(globex, target(crm));
    await getCustomer({ ...acme, memberId: "mem_1" }, target(crm));
    const after = await sessions(crm);
    expect(after.initializations - before.initializations).toBe(3);
    expect(after.open_sessions).toBe(3);
  });

  it("closes a connector's sessions when it is deactivated, and only that organization's", async () => {
    await getCustomer(acme, target(crm));
    await getCustomer(globex, target(crm));
    dropMcpSessions("org_acme", 1);
    await expect.poll(async () => (await sessions(crm)).open_sessions).toBe(1);
    expect(openMcpSessionCount()).toBe(1);
  });
});
