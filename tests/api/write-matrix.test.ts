import { randomBytes } from "node:crypto";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { callTool, createRun } from "./dispatch-fixtures";
import { api, createTenant, crmFaults, crmState, signIn, testDb, type Caller } from "./helpers";
import {
  approveOk,
  callCrmDirectly,
  commit,
  commitKey,
  crmOperationsOf,
  getProposal,
  previewAddress,
  resetCrm,
  setupCrm,
  touchCustomer,
  type CrmSetup,
} from "./proposals-helpers";

// The write matrix: every write tool of the catalog — read from GET /v1/tools,
// not listed here — goes through the same eight refusals of the commit, by the
// real dispatcher against CRM Acme. A write tool that appears in the catalog
// without a recipe below fails the suite: no write ships without these proofs.

type CrmStore = Record<string, Array<Record<string, any>>>;

interface WriteRecipe {
  /** Puts a proposal for this tool in the run (a preview, or the candidate arguments); returns its id. */
  propose(setup: CrmSetup, run: string): Promise<string>;
  /** What another client of the service sends under Guichet's key, with other arguments. */
  otherArguments: Record<string, unknown>;
  /**
   * The target changes at the service between the approval and the commit. A versioned target is `refused`:
   * the change makes the approved proposal stale, and Guichet answers the tool error code named (with the
   * service's own code in the message when it is not one of the stable codes). A target without a version is
   * `reported`: the write commits once, as approved, and its result says what it found — `check` asserts it.
   */
  stale:
    | { refused: () => Promise<{ code: string; mentions?: string }> }
    | {
        reported: {
          because: string;
          change: () => Promise<void>;
          check: (result: Record<string, any>, state: CrmStore) => Promise<void> | void;
        };
      };
  /** This tool's visible effect in CRM Acme's store: unchanged means nothing was written. */
  effects(state: CrmStore): unknown;
}

async function proposeWith(setup: CrmSetup, run: string, tool: string, args: Record<string, unknown>): Promise<string> {
  const envelope = await callTool(setup.tenant, run, setup.crm.key(tool), args);
  if (envelope.error?.code !== "APPROVAL_REQUIRED") throw new Error(`${tool}: ${JSON.stringify(envelope)}`);
  return envelope.error.proposal_id as string;
}

const recipes: Record<string, WriteRecipe> = {
  commit_address_change: {
    async propose(setup, run) {
      const preview = await previewAddress(setup, run, "ADDR-2");
      return preview.evidence.proposal.id as string;
    },
    otherArguments: {
      customer_id: "C-1842",
      destination: { kind: "saved", address_id: "ADDR-3" },
      expected_version: 17,
    },
    stale: {
      refused: async () => {
        await touchCustomer("C-1842");
        return { code: "VERSION_CONFLICT" };
      },
    },
    effects: (state) => state.customers.find((c) => c.customer_id === "C-1842")!.shipping_address,
  },
  send_email: {
    propose: (setup, run) =>
      proposeWith(setup, run, "send_email", {
        to: ["camille.martin@example.com"],
        subject: "Votre commande",
        body: "Bonjour, votre commande est partie.",
      }),
    otherArguments: { to: ["autre@example.com"], subject: "Autre", body: "Autre message." },
    stale: {
      reported: {
        because: "an e-mail has no record version: it is sent as approved or not at all",
        // Another client of the service writes to the same customer in between.
        change: async () => {
          const other = await callCrmDirectly("send_email", {
            to: ["camille.martin@example.com"],
            subject: "Autre message",
            body: "Envoyé par un autre client.",
            idempotency_key: `other-${randomBytes(6).toString("hex")}`,
          });
          if (other.isError) throw new Error(`other e-mail: ${JSON.stringify(other.structuredContent)}`);
        },
        check: (_result, state) => {
          expect(state.outbox.map((m) => m.subject)).toEqual(["Autre message", "Votre commande"]);
          expect(state.outbox[1]).toMatchObject({
            recipients: ["camille.martin@example.com"],
            body: "Bonjour, votre commande est partie.",
          });
        },
      },
    },
    effects: (state) => state.outbox.length,
  },
  refund_payment: {
    propose: (setup, run) =>
      proposeWith(setup, run, "refund_payment", {
        payment_id: "PAY-9002",
        amount: { value_minor: 500, currency: "EUR" },
        reason: "Geste commercial",
      }),
    otherArguments: { payment_id: "PAY-9002", amount: { value_minor: 700, currency: "EUR" } },
    stale: {
      refused: async () => {
        // Someone else refunded the whole payment since the approval: what was approved no longer fits.
        const drained = await callCrmDirectly("refund_payment", {
          payment_id: "PAY-9002",
          amount: { value_minor: 4_990, currency: "EUR" },
          idempotency_key: `other-${randomBytes(6).toString("hex")}`,
        });
        if (drained.isError) throw new Error(`drain: ${JSON.stringify(drained.structuredContent)}`);
        // Not one of the stable tool error codes: an upstream refusal that names the service's code.
        return { code: "UPSTREAM_ERROR", mentions: "AMOUNT_EXCEEDS_REMAINING" };
      },
    },
    effects: (state) => state.refunds.filter((r) => r.payment_id === "PAY-9002").length,
  },
  suspend_invoice_delivery: {
    propose: (setup, run) =>
      proposeWith(setup, run, "suspend_invoice_delivery", {
        customer_id: "C-2001",
        invoice_ids: ["INV-2001-001", "INV-2001-002"],
      }),
    otherArguments: { customer_id: "C-2001", invoice_ids: ["INV-2001-003"] },
    stale: {
      reported: {
        because:
          "an invoice has no record version: suspending one already suspended is reported in the result (already_suspended), not refused",
        change: () => suspendDirectly("C-2001", ["INV-2001-001"]),
        check: (result, state) => {
          expect(result).toMatchObject({ suspended_count: 1, already_suspended: ["INV-2001-001"] });
          expect(state.invoices.filter((i) => i.invoice_id === "INV-2001-002" && i.delivery_suspended)).toHaveLength(1);
        },
      },
    },
    effects: (state) =>
      state.invoices
        .filter((i) => i.delivery_suspended)
        .map((i) => i.invoice_id)
        .sort(),
  },
  suspend_all_invoice_delivery: {
    propose: (setup, run) => proposeWith(setup, run, "suspend_all_invoice_delivery", { customer_id: "C-2001" }),
    otherArguments: { customer_id: "C-1842" },
    stale: {
      reported: {
        because:
          "accepted as a job of the whole customer: there is no record version, invoices already suspended are counted, not refused",
        change: () => suspendDirectly("C-2001", ["INV-2001-001"]),
        async check(result, state) {
          expect(result).toMatchObject({ customer_id: "C-2001", status: "running" });
          const pending = state.invoices.filter((i) => i.customer_id === "C-2001" && !i.delivery_suspended).length;
          expect(pending).toBeGreaterThan(0);
          // The job counts only what it suspended: the invoice another client suspended first is not in it.
          expect(await finishedJob(result.job_id as string)).toMatchObject({
            status: "succeeded",
            result: { suspended_count: pending },
          });
        },
      },
    },
    effects: (state) => state.jobs.map((job) => `${job.customer_id}:${job.status}`),
  },
  cancel_job: {
    async propose(setup, run) {
      const job = await startJob();
      spareJob = await startJob();
      return proposeWith(setup, run, "cancel_job", { job_id: job });
    },
    // Another running job, started with the one the proposal cancels.
    get otherArguments() {
      return { job_id: spareJob };
    },
    stale: {
      reported: {
        because:
          "a job has no record version: cancelling one that already finished is reported (already_finished), not refused",
        // Another client of the service cancels the job first.
        change: async () => {
          const job = (await crmState()).jobs.find(
            (j: Record<string, any>) => j.status === "running" && j.job_id !== spareJob,
          )!;
          const other = await callCrmDirectly("cancel_job", {
            job_id: job.job_id,
            idempotency_key: `other-${randomBytes(6).toString("hex")}`,
          });
          if (other.isError) throw new Error(`other cancel: ${JSON.stringify(other.structuredContent)}`);
        },
        check: (result) => expect(result).toMatchObject({ outcome: "already_finished", status: "cancelled" }),
      },
    },
    effects: (state) => state.jobs.map((job) => `${job.job_id}:${job.status}`),
  },
};

/** Another client of CRM Acme suspends these invoices under its own key. */
async function suspendDirectly(customerId: string, invoiceIds: string[]): Promise<void> {
  const other = await callCrmDirectly("suspend_invoice_delivery", {
    customer_id: customerId,
    invoice_ids: invoiceIds,
    idempotency_key: `other-${randomBytes(6).toString("hex")}`,
  });
  if (other.isError) throw new Error(`other suspension: ${JSON.stringify(other.structuredContent)}`);
}

/** Polls CRM Acme's job status until the job reaches a final state (jobs finish when read, once their time passed). */
async function finishedJob(jobId: string): Promise<Record<string, any>> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const status = (await callCrmDirectly("get_job_status", { job_id: jobId })).structuredContent as Record<
      string,
      any
    >;
    if (status.status !== "running") return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`job ${jobId} still running`);
}

/** The second job a cancel_job recipe started, for another client's cancel under Guichet's key. */
let spareJob = "";

/** A job of CRM Acme's long write, started by another client of the service and kept running. */
async function startJob(): Promise<string> {
  await crmFaults({ hold_jobs: true });
  const started = await callCrmDirectly("suspend_all_invoice_delivery", {
    customer_id: "C-2001",
    idempotency_key: `job-${randomBytes(6).toString("hex")}`,
  });
  if (started.isError) throw new Error(`job: ${JSON.stringify(started.content)}`);
  return (started.structuredContent as { job_id: string }).job_id;
}

let setup: CrmSetup;
let writeTools: string[];
/** A member of its own whose role a case may take away after they approved. */
let extra: { id: string; caller: Caller };

beforeAll(async () => {
  const tenant = await createTenant("pro");
  setup = await setupCrm(tenant);
  // Two approvals for every write, so that a quorum can be missed by one.
  const current = await api("/v1/policies", { as: { key: tenant.key } });
  const rule = {
    id: "matrix-two-people",
    match: { effect: "write" },
    decision: "require_approval",
    approvals_required: 2,
    approver_roles: ["owner", "admin", "approver"],
    ttl_seconds: 3600,
  };
  const put = await api("/v1/policies", {
    method: "PUT",
    json: { rules: [rule, ...current.body.data.rules], base_version: current.body.data.version },
    as: await tenant.as("admin"),
  });
  if (put.status !== 200) throw new Error(`policy: HTTP ${put.status} ${JSON.stringify(put.body)}`);
  const db = await testDb();
  const { newId } = await import("@/lib/ids");
  const { hashPassword } = await import("@/lib/auth/passwords");
  const email = `extra-approver@${tenant.slug}.test`;
  const member = await db.member.create({
    data: {
      id: newId("mem"),
      organizationId: tenant.organizationId,
      email,
      name: "Extra approver",
      role: "approver",
      passwordHash: await hashPassword("guichet-demo"),
    },
  });
  extra = { id: member.id, caller: await signIn(email) };
  const catalog = await api("/v1/tools", { as: { key: tenant.key } });
  writeTools = (catalog.body.data as { key: string; writes_data: boolean; server: { id: number } | null }[])
    .filter((entry) => entry.writes_data && entry.server?.id === setup.crm.serverId)
    .map((entry) => entry.key.slice(`mcp_${setup.crm.serverId}_`.length));
});
beforeEach(resetCrm);

/** A proposal of the tool in a fresh run, approved by two entitled people. */
async function approved(tool: string) {
  const run = await setup.run();
  const id = await recipes[tool].propose(setup, run);
  await approveOk(setup.tenant, id, await setup.tenant.as("approver"));
  expect((await approveOk(setup.tenant, id, await setup.tenant.as("admin"))).status).toBe("approved");
  return { run, id };
}

/** Asserts the refusal and that nothing of this run reached CRM Acme. */
async function refusedAndNothingSent(
  tool: string,
  run: string,
  envelope: { ok: boolean; error?: { code: string } },
  code: string,
  before: unknown,
) {
  expect({ tool, code: envelope.error?.code }).toEqual({ tool, code });
  expect(await crmOperationsOf(run)).toHaveLength(0);
  expect(recipes[tool].effects(await crmState())).toEqual(before);
}

describe("the write matrix", () => {
  it("covers every write tool of the catalog: a new one without a recipe fails here", () => {
    expect(writeTools.length).toBeGreaterThan(0);
    expect(writeTools.filter((tool) => !recipes[tool])).toEqual([]);
  });

  const cases: [string, (tool: string) => Promise<void>][] = [
    [
      "stale target",
      async (tool) => {
        const { stale } = recipes[tool];
        const { run, id } = await approved(tool);
        if ("reported" in stale) {
          await stale.reported.change();
          const envelope = await commit(setup, run, tool, id);
          expect({ tool, ok: envelope.ok, error: envelope.error }).toEqual({ tool, ok: true, error: undefined });
          await stale.reported.check(envelope.result, await crmState());
          expect((await crmOperationsOf(run)).map((op) => op.status)).toEqual(["succeeded"]);
          expect((await getProposal(setup.tenant, id)).status).toBe("consumed");
          return;
        }
        const { code, mentions } = await stale.refused();
        const before = recipes[tool].effects(await crmState());
        const envelope = await commit(setup, run, tool, id);
        expect({ tool, code: envelope.error?.code }).toEqual({ tool, code });
        if (mentions) {
          expect(envelope.error.message).toContain(mentions);
          // The service's code is a field of the envelope too, not only words in the message.
          expect(envelope.error.upstream_code).toBe(mentions);
        }
        expect(recipes[tool].effects(await crmState())).toEqual(before);
        // The service recorded its refusal under Guichet's key; nothing was written, the proposal stays unconsumed.
        expect((await crmOperationsOf(run)).map((op) => op.status)).toEqual(["failed"]);
        expect((await getProposal(setup.tenant, id)).status).toBe("approved");
      },
    ],
    [
      "expired approval",
      async (tool) => {
        const { run, id } = await approved(tool);
        await (await testDb()).proposal.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
        const before = recipes[tool].effects(await crmState());
        await refusedAndNothingSent(tool, run, await commit(setup, run, tool, id), "PROPOSAL_EXPIRED", before);
      },
    ],
    [
      "approver without rights",
      async (tool) => {
        const db = await testDb();
        await db.member.update({ where: { id: extra.id }, data: { role: "approver" } });
        const run = await setup.run();
        const id = await recipes[tool].propose(setup, run);
        await approveOk(setup.tenant, id, extra.caller);
        await approveOk(setup.tenant, id, await setup.tenant.as("admin"));
        // Rights are asked again at commit: the extra approver lost the role since.
        await db.member.update({ where: { id: extra.id }, data: { role: "viewer" } });
        const before = recipes[tool].effects(await crmState());
        await refusedAndNothingSent(tool, run, await commit(setup, run, tool, id), "APPROVER_NOT_AUTHORIZED", before);
      },
    ],
    [
      "quorum not met",
      async (tool) => {
        const run = await setup.run();
        const id = await recipes[tool].propose(setup, run);
        expect((await approveOk(setup.tenant, id, await setup.tenant.as("approver"))).status).toBe("pending");
        const before = recipes[tool].effects(await crmState());
        await refusedAndNothingSent(tool, run, await commit(setup, run, tool, id), "PROPOSAL_NOT_APPROVED", before);
      },
    ],
    [
      "duplicate key",
      async (tool) => {
        const { run, id } = await approved(tool);
        const first = await commit(setup, run, tool, id);
        expect({ tool, ok: first.ok }).toEqual({ tool, ok: true });
        const after = recipes[tool].effects(await crmState());
        const second = await commit(setup, run, tool, id);
        expect(second).toMatchObject({
          ok: true,
          result: first.result,
          evidence: { operation: first.evidence.operation, replayed: true },
        });
        expect(await crmOperationsOf(run)).toHaveLength(1);
        expect(recipes[tool].effects(await crmState())).toEqual(after);
      },
    ],
    [
      "key reused with other arguments",
      async (tool) => {
        const { run, id } = await approved(tool);
        const key = commitKey(setup, run, id, tool);
        const direct = await callCrmDirectly(tool, { ...recipes[tool].otherArguments, idempotency_key: key });
        expect({ tool, isError: direct.isError ?? false }).toEqual({ tool, isError: false });
        const after = recipes[tool].effects(await crmState());
        const envelope = await commit(setup, run, tool, id);
        expect({ tool, code: envelope.error?.code }).toEqual({ tool, code: "IDEMPOTENCY_KEY_REUSED" });
        expect(await crmOperationsOf(run)).toHaveLength(1);
        expect(recipes[tool].effects(await crmState())).toEqual(after);
        expect((await getProposal(setup.tenant, id)).status).toBe("approved");
      },
    ],
    [
      "extra arguments at commit",
      async (tool) => {
        const { run, id } = await approved(tool);
        const before = recipes[tool].effects(await crmState());
        for (const extraArgs of [{ note: "x" }, { idempotency_key: "agent-picked-key-01" }]) {
          const envelope = await callTool(setup.tenant, run, setup.crm.key(tool), { proposal_id: id, ...extraArgs });
          await refusedAndNothingSent(tool, run, envelope, "INVALID_ARGUMENTS", before);
        }
        expect((await getProposal(setup.tenant, id)).status).toBe("approved");
      },
    ],
    [
      "commit in a read run",
      async (tool) => {
        const { id } = await approved(tool);
        const readRun = (await createRun(setup.tenant, { agent: setup.agentId, capabilities: "read" })).run
          .id as string;
        const before = recipes[tool].effects(await crmState());
        await refusedAndNothingSent(tool, readRun, await commit(setup, readRun, tool, id), "TOOL_NOT_IN_RUN", before);
        expect((await getProposal(setup.tenant, id)).status).toBe("approved");
      },
    ],
  ];

  it.each(cases)(
    "%s — for every write tool of the catalog, through the dispatcher: never a second or an unapproved write",
    async (_name, check) => {
      for (const tool of writeTools) {
        await resetCrm();
        await check(tool);
      }
    },
  );
});
