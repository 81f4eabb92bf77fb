import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, crmBaseUrl, crmFaults, startSuiteInstance, testDb, until } from "./helpers";
import {
  ADDR_2,
  approvedAddressChange,
  crmCustomer,
  crmOperationsOf,
  crmSuite,
  getProposal,
} from "./proposals-helpers";
import { startApp } from "./server";

// The sweep of operations left `running` (lib/operations/sweep.ts). A commit is sent through a second
// instance, CRM Acme holds the write, the instance is killed (SIGKILL: nothing recorded on the way out):
// its operation stays `running` and, as a client-driven run whose client gave up, nobody commits it again.
// Test servers sweep every second; the test moves the operation's last change past
// GUICHET_OPERATION_STALE_MS (a day on test servers, see startApp),
// which is the only thing it doctors. The assertions read Guichet's database and CRM Acme's own records;
// CRM Acme holds writes again while the sweep works, so any second send would show as a held write.

type App = Awaited<ReturnType<typeof startApp>>;
let second: App | null = null;
const setup = crmSuite();
/** Another instance on the suite's database (test instances all sweep every second, whichever runs the job). */
const startSecond = () => startSuiteInstance();

beforeAll(async () => {
  second = await startSecond();
}, 180_000);
afterAll(async () => second?.crash());

async function crmHeld(): Promise<number> {
  return ((await (await fetch(`${crmBaseUrl}/__control/held`)).json()) as { writes: number }).writes;
}

/** Commits the approved proposal through the second instance and kills it while CRM Acme holds the write. */
async function commitThenKill(runId: string, proposalId: string) {
  await crmFaults({ hold_writes: true });
  const answered = fetch(`${second!.baseUrl}/v1/runs/${runId}/tool_calls`, {
    method: "POST",
    headers: { authorization: `Bearer ${setup.tenant.key}`, "content-type": "application/json" },
    body: JSON.stringify({ tool: setup.crm.key("commit_address_change"), arguments: { proposal_id: proposalId } }),
  }).then(
    () => "answered",
    () => "cut",
  );
  await until(async () => (await crmHeld()) === 1, "the commit held by CRM Acme");
  await second!.crash();
  // The client never hears back: its connection died with the instance.
  expect(await answered).toBe("cut");
  second = await startSecond();
  const db = await testDb();
  const [operation] = await db.operation.findMany({ where: { runId, proposalId } });
  expect(operation).toMatchObject({ status: "running" });
  return operation;
}

/** What the passing of time past the bound would do: the operation's last change is old enough to sweep. */
async function ageOperation(id: string) {
  const db = await testDb();
  // Two days: past the test servers' bound (a day, startApp), which nothing else in the suite is old enough to reach.
  await db.operation.update({ where: { id }, data: { updatedAt: new Date(Date.now() - 2 * 24 * 60 * 60 * 1000) } });
}

async function settledByTheSweep(id: string) {
  const db = await testDb();
  return until(
    async () => {
      const row = await db.operation.findUniqueOrThrow({ where: { id } });
      return row.status !== "running" ? row : null;
    },
    "the sweep to settle the operation",
    30_000,
  );
}

describe("an operation left running by a sender killed mid-commit", () => {
  it(
    "is settled by the service's recorded success once past the bound: the proposal consumed, one write",
    { timeout: 240_000 },
    async () => {
      const run = await setup.run();
      const proposal = await approvedAddressChange(setup, run, "ADDR-2");
      const operation = await commitThenKill(run, proposal.id);
      // Released: the held write lands at CRM Acme, after its sender died.
      await crmFaults({ hold_writes: false });
      await until(async () => (await crmOperationsOf(run)).length === 1, "CRM Acme to record the write");
      // Not yet past the bound: the sweep leaves a sender that might still be at work alone.
      const db = await testDb();
      expect(await db.operation.findUniqueOrThrow({ where: { id: operation.id } })).toMatchObject({
        status: "running",
      });
      await crmFaults({ hold_writes: true });
      await ageOperation(operation.id);
      const settled = await settledByTheSweep(operation.id);
      expect(settled).toMatchObject({ status: "succeeded", result: expect.objectContaining({ new_version: 18 }) });
      expect((await getProposal(setup.tenant, proposal.id)).status).toBe("consumed");
      // Exactly one write: CRM Acme's one record under Guichet's key, and nothing sent again (it would be held).
      expect(await crmHeld()).toBe(0);
      expect(await crmOperationsOf(run)).toEqual([
        expect.objectContaining({ status: "succeeded", idempotency_key: operation.idempotencyKey }),
      ]);
      expect(await crmCustomer("C-1842")).toMatchObject({ version: 18, shipping_address: ADDR_2 });
      // The run goes on: a later commit of the proposal answers the recorded success.
      const again = await api(`/v1/runs/${run}/tool_calls`, {
        json: { tool: setup.crm.key("commit_address_change"), arguments: { proposal_id: proposal.id } },
        as: { key: setup.tenant.key },
      });
      expect(again.body).toMatchObject({ ok: true, evidence: { operation: operation.id, replayed: true } });
      expect(await crmOperationsOf(run)).toHaveLength(1);
      await crmFaults({ hold_writes: false });
    },
  );

  it(
    "is escalated as unknown when the service has no record of it: the run suspended, nothing sent again",
    { timeout: 240_000 },
    async () => {
      const run = await setup.run();
      const proposal = await approvedAddressChange(setup, run, "ADDR-2");
      const operation = await commitThenKill(run, proposal.id);
      // The write is still held at CRM Acme: its status tool has nothing under the key.
      await ageOperation(operation.id);
      const settled = await settledByTheSweep(operation.id);
      expect(settled).toMatchObject({ status: "unknown", error: expect.objectContaining({ code: "OUTCOME_UNKNOWN" }) });
      const trail = (settled.error as { trail: Array<{ step: string }> }).trail.map((entry) => entry.step);
      expect(trail).toEqual(["commit", "status"]);
      const db = await testDb();
      expect(await db.run.findUniqueOrThrow({ where: { id: run } })).toMatchObject({ status: "suspended" });
      expect(await db.proposal.findUniqueOrThrow({ where: { id: proposal.id } })).toMatchObject({
        status: "approved",
      });
      // An operator sees it among the unknown outcomes.
      const unknown = await api(`/v1/operations?status=unknown&run=${run}`, { as: { key: setup.tenant.key } });
      expect(unknown.body.data.map((row: { id: string }) => row.id)).toEqual([operation.id]);
      // The one write CRM Acme got is still the first, held; nothing was sent again, nothing recorded yet.
      expect(await crmHeld()).toBe(1);
      expect(await crmOperationsOf(run)).toEqual([]);
      expect(await crmCustomer("C-1842")).toMatchObject({ version: 17 });
      await crmFaults({ hold_writes: false });
      await until(async () => (await crmOperationsOf(run)).length === 1, "the held write to land");
    },
  );
});
