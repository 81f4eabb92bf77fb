import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool } from "./dispatch-fixtures";
import { api, createTenant, startSuiteInstance, testDb, type Tenant, until } from "./helpers";
import { setupCrm, type CrmSetup } from "./proposals-helpers";
import { outboxTimings, startApp } from "./server";
import { startReceiver, type Receiver } from "./webhook-receiver";

// Two Guichet instances on one database (the suite's server and one of this
// file's) both read the outbox: every event reaches the receiver exactly once.
// Then the second instance dies in the middle of its work (SIGKILL) and a new
// process starts: nothing recorded is lost, nothing is sent twice.

let second: Awaited<ReturnType<typeof startApp>>;
let setup: CrmSetup;
let tenant: Tenant;
let receiver: Receiver;

const startSecond = () => startSuiteInstance({ ...outboxTimings() });

beforeAll(async () => {
  receiver = await startReceiver();
  // The connector is set up before the second instance starts: on SQLite, two processes writing one file
  // at once (its outbox poll, the tools' review) is a contention this file does not test.
  tenant = await createTenant("pro");
  setup = await setupCrm(tenant);
  second = await startSecond();
});
afterAll(async () => {
  await second?.stop();
  await receiver?.close();
});

/** A proposal through one instance or the other: the event is recorded by whichever served the call. */
async function propose(base?: string): Promise<string> {
  const run = await setup.run();
  const preview = await callTool(
    tenant,
    run,
    setup.crm.key("preview_address_change"),
    { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } },
    base,
  );
  expect(preview.ok, JSON.stringify(preview)).toBe(true);
  return preview.evidence.proposal.id as string;
}

async function settled(endpointId: string, count: number) {
  const db = await testDb();
  return until(async () => {
    const rows = await db.outboxDelivery.findMany({ where: { endpointId } });
    return rows.length === count && rows.every((row) => row.status === "succeeded") && rows;
  }, `${count} deliveries to succeed`);
}

describe("two instances on one database", () => {
  it("deliver each event exactly once", async () => {
    const created = await api("/v1/webhook_endpoints", {
      json: { url: receiver.url, events: ["proposal.created"] },
      as: await tenant.as("admin"),
    });
    expect(created.status).toBe(201);
    const proposals: string[] = [];
    for (let i = 0; i < 8; i++) proposals.push(await propose(i % 2 === 0 ? second.baseUrl : undefined));
    const rows = await settled(created.body.data.id, 8);
    for (const row of rows) {
      // One request per recorded attempt: no attempt was made by both instances.
      const seen = receiver.attemptsOf(row.id);
      expect(seen, row.id).toHaveLength(row.attempts);
      expect(row, row.id).toMatchObject({ attempts: 1, lastError: null });
      expect(() => receiver.verify(seen[0], created.body.data.secret)).not.toThrow();
    }
    const createdEvents = receiver.received.filter((hook) => hook.payload.type === "proposal.created");
    expect(createdEvents.map((hook) => hook.payload.data.proposal).sort()).toEqual([...proposals].sort());
    // The next test plans the receiver's answers: no delivery of this endpoint may take them.
    const removed = await api(`/v1/webhook_endpoints/${created.body.data.id}`, {
      method: "DELETE",
      as: await tenant.as("admin"),
    });
    expect(removed.status).toBe(200);
  });

  it("lose nothing when an instance is killed and another process starts", async () => {
    const created = await api("/v1/webhook_endpoints", {
      json: { url: receiver.url, events: ["proposal.created"] },
      as: await tenant.as("admin"),
    });
    const endpointId = created.body.data.id as string;
    // The receiver holds the first attempt open: the instance that sent it is killed meanwhile if it was the second.
    receiver.plan.push("hang");
    const first = await propose(second.baseUrl);
    await until(
      async () => receiver.received.some((hook) => hook.payload?.data?.proposal === first),
      "the first attempt",
    );
    await second.crash();
    const afterCrash = await propose();
    second = await startSecond();
    const fromRestarted = await propose(second.baseUrl);
    const rows = await settled(endpointId, 3);
    const byProposal = new Map(
      receiver.received
        .filter((hook) => rows.some((row) => row.id === hook.id))
        .map((hook) => [hook.payload.data.proposal as string, hook.id]),
    );
    for (const proposal of [first, afterCrash, fromRestarted]) expect(byProposal.has(proposal), proposal).toBe(true);
    // The held attempt was sent again under the same webhook-id and acknowledged once.
    const firstId = byProposal.get(first)!;
    const attempts = receiver.attemptsOf(firstId);
    expect(attempts.map((hook) => hook.answered)).toEqual(["hang", 200]);
    expect(rows.find((row) => row.id === firstId)?.attempts).toBe(2);
  });
});
