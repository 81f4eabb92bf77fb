import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { callTool } from "./dispatch-fixtures";
import { api, createTenant, crmFaults, crmState, until } from "./helpers";
import { approveOk, commit, crmOperationsOf, resetCrm, setupCrm, type CrmSetup } from "./proposals-helpers";
import { recipes } from "./write-recipes";
import { crmHeldWrites } from "./write-proofs-helpers";

// Declared semantics are true: for every write contract of the catalog (GET
// /v1/tools, then its published contract), what the contract says of retry,
// idempotency, status tool and cancellation is compared with what the write
// path does against CRM Acme. Each observation is made from behaviour only —
// what reached the service, under which key, what Guichet answered — and then
// put in the contract's own terms, so a declaration that lies fails here:
//   retry idempotent  ⇐ a lost answer is recovered without a second send, and a repeated commit replays
//   idempotency       ⇐ the service recorded the write under the key Guichet generated
//   status_tool       ⇐ after the lost answer, that read tool reports the write the service recorded
//   cancellation      ⇐ a run cancelled while the write is held at the service: abort if the call was cut,
//                       else cancel_tool if the operation's cancel stopped the work at the service,
//                       else not_interruptible.

interface Declared {
  retry: string;
  idempotency: { key_field: string } | null;
  status_tool: string | null;
  cancellation: string;
}

let setup: CrmSetup;
let declared: Record<string, Declared>;

beforeAll(async () => {
  const tenant = await createTenant("pro");
  setup = await setupCrm(tenant);
  const catalog = (await api("/v1/tools", { as: { key: tenant.key } })).body.data as {
    key: string;
    writes_data: boolean;
    server: { id: number } | null;
  }[];
  declared = {};
  for (const entry of catalog.filter((e) => e.writes_data && e.server?.id === setup.crm.serverId)) {
    const contract = (await api(`/v1/tools/${entry.key}/contract`, { as: { key: tenant.key } })).body.data;
    const { retry, idempotency, status_tool, cancellation } = contract;
    declared[entry.key.slice(`mcp_${setup.crm.serverId}_`.length)] = { retry, idempotency, status_tool, cancellation };
  }
});
beforeEach(resetCrm);

/** A proposal of the tool in a fresh run, approved as the organization's default policy asks. */
async function approved(tool: string): Promise<{ run: string; id: string }> {
  const run = await setup.run();
  const id = await recipes[tool].propose(setup, run);
  let proposal = await approveOk(setup.tenant, id, await setup.tenant.as("approver"));
  if (proposal.status !== "approved") proposal = await approveOk(setup.tenant, id, await setup.tenant.as("admin"));
  expect({ tool, status: proposal.status }).toEqual({ tool, status: "approved" });
  return { run, id };
}

/** Retry, idempotency and status tool, observed around an answer the service sent and Guichet never got. */
async function observeLostAnswer(tool: string): Promise<Omit<Declared, "cancellation">> {
  const { run, id } = await approved(tool);
  await crmFaults({ cut_after_commit: true });
  const first = await commit(setup, run, tool, id);
  await crmFaults({ cut_after_commit: false });
  const written = await crmOperationsOf(run);
  const key = first.ok ? (first.evidence.idempotency_key as string) : null;
  const underGuichetsKey = written.length === 1 && key !== null && written[0].idempotency_key === key;
  let statusTool: string | null = null;
  const candidate = declared[tool].status_tool;
  if (first.ok && first.evidence.recovered_by === "status" && candidate) {
    // The status tool, asked through Guichet like any read, reports the write the service recorded.
    const asked = await callTool(setup.tenant, await setup.run(), candidate, { idempotency_key: key });
    if (asked.ok && asked.result.status === "succeeded" && asked.result.operation_id === written[0].operation_id)
      statusTool = candidate;
  }
  const again = await commit(setup, run, tool, id);
  const replays = again.ok && again.evidence.replayed === true && (await crmOperationsOf(run)).length === 1;
  return {
    retry: first.ok && underGuichetsKey && replays ? "idempotent" : "never",
    idempotency: underGuichetsKey ? { key_field: "idempotency_key" } : null,
    status_tool: statusTool,
  };
}

/** Cancellation, observed on a run cancelled while its commit is held inside the service. */
async function observeCancel(tool: string): Promise<string> {
  const { run, id } = await approved(tool);
  await crmFaults({ hold_writes: true, hold_jobs: true });
  const pending = commit(setup, run, tool, id);
  await until(async () => (await crmHeldWrites()) === 1, `${tool}: the write to reach CRM Acme`);
  const cancelled = (await api(`/v1/runs/${run}/cancel`, { method: "POST", as: { key: setup.tenant.key } })).body;
  await crmFaults({ hold_writes: false });
  const envelope = await pending;
  if (!envelope.ok) {
    expect({ tool, stopped: cancelled.cancellation.stopped_calls }).toEqual({ tool, stopped: 1 });
    return "abort";
  }
  expect({ tool, cancellation: cancelled.cancellation }).toMatchObject({
    tool,
    cancellation: { stopped_calls: 0, uninterruptible_calls: 1 },
  });
  expect({ tool, written: (await crmOperationsOf(run)).length }).toEqual({ tool, written: 1 });
  const before = JSON.stringify((await crmState()).jobs);
  const answer = await api(`/v1/operations/${envelope.evidence.operation}/cancel`, {
    method: "POST",
    as: { key: setup.tenant.key },
  });
  expect(answer.status).toBe(200);
  if (answer.body.outcome === "stopped") {
    // Stopped at the service: its job is cancelled there, not only in Guichet's books.
    const job = ((await crmState()).jobs as Record<string, unknown>[]).find((j) => j.job_id === envelope.result.job_id);
    expect({ tool, job: job?.status }).toEqual({ tool, job: "cancelled" });
    return "cancel_tool";
  }
  // Nothing was stopped, and nothing at the service changed.
  expect({ tool, jobs: JSON.stringify((await crmState()).jobs) }).toEqual({ tool, jobs: before });
  return "not_interruptible";
}

describe("declared semantics of every write contract", () => {
  it("covers the catalog's writes: each has a recipe", () => {
    expect(Object.keys(declared).length).toBeGreaterThan(0);
    expect(Object.keys(declared).filter((tool) => !recipes[tool])).toEqual([]);
  });

  it("retry, idempotency and status tool are what the write path does when an answer is lost", async () => {
    const observed: Record<string, Omit<Declared, "cancellation">> = {};
    for (const tool of Object.keys(declared)) {
      await resetCrm();
      observed[tool] = await observeLostAnswer(tool);
    }
    const claims = Object.fromEntries(
      Object.entries(declared).map(([tool, { retry, idempotency, status_tool }]) => [
        tool,
        { retry, idempotency, status_tool },
      ]),
    );
    expect(observed).toEqual(claims);
  });

  it("cancellation is what cancelling does to a write held at the service", async () => {
    const observed: Record<string, string> = {};
    for (const tool of Object.keys(declared)) {
      await resetCrm();
      observed[tool] = await observeCancel(tool);
    }
    expect(observed).toEqual(Object.fromEntries(Object.entries(declared).map(([tool, d]) => [tool, d.cancellation])));
    // The long job is the one write the service can be asked to stop.
    expect(Object.entries(observed).filter(([, how]) => how === "cancel_tool")).toEqual([
      ["suspend_all_invoice_delivery", "cancel_tool"],
    ]);
  });
});
