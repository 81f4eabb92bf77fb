import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createScript } from "@/connectors/model-sim/control";
import type { ScriptBody } from "@/connectors/model-sim/script";
import { callTool, connectCrm, createRun, type ConnectedCrm } from "@/tests/api/dispatch-fixtures";
import { api, createTenant, simBaseUrl, testDb, until, type Tenant } from "@/tests/api/helpers";
import { approveOk, callCrmDirectly, resetCrm } from "@/tests/api/proposals-helpers";
import { CommittedTrace, normalizer, TRACES_DIR, type CommittedEvent } from "./format";

// `npm run traces:record` runs this file (vitest.traces.config.mts) on a fresh
// stack of its own — the production build, a new database, CRM Acme and
// model-sim — and rewrites tests/traces/*.json: each demo scenario is played
// by a traced agent through the real API, and its runs' trace rows, as the
// recorder stored them (redacted), are written out. Run it when a contract
// change is intended and the regression suite names the calls it breaks.

let tenant: Tenant;
let crm: ConnectedCrm;

async function setup() {
  tenant ??= await createTenant("pro");
  crm ??= await connectCrm(tenant, { name: "CRM Acme" });
}

/** An agent with tracing on: only an owner or an admin may turn it on, in their session. */
async function tracedAgent(name: string, tools: string[]): Promise<string> {
  const created = await api("/v1/agents", {
    json: { name, tools, trace: "redacted" },
    as: await tenant.as("admin"),
  });
  expect(created.status).toBe(201);
  return created.body.data.id as string;
}

async function run(agent: string, capabilities: "read" | "read_write" = "read"): Promise<string> {
  return (await createRun(tenant, { agent, capabilities })).run.id as string;
}

async function ok(runId: string, tool: string, args: unknown) {
  const envelope = await callTool(tenant, runId, tool, args);
  expect(envelope.ok, `${tool}: ${JSON.stringify(envelope.error)}`).toBe(true);
  return envelope;
}

/** A write as an agent makes it: the proposal, the demo approver's approval, the commit with only its id. */
async function approvedWrite(runId: string, tool: string, args: Record<string, unknown>) {
  const proposed = await callTool(tenant, runId, crm.key(tool), args);
  expect(proposed.error?.code, `${tool}: ${JSON.stringify(proposed)}`).toBe("APPROVAL_REQUIRED");
  await approveOk(tenant, proposed.error.proposal_id, "approver");
  return ok(runId, crm.key(tool), { proposal_id: proposed.error.proposal_id });
}

async function write(scenario: string, description: string, runs: string[]): Promise<void> {
  const db = await testDb();
  const normalize = normalizer(crm.serverId);
  const events: CommittedEvent[] = [];
  for (const [index, runId] of runs.entries()) {
    const rows = await db.traceEvent.findMany({ where: { runId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    for (const row of rows)
      events.push({
        id: `${scenario}#${events.length + 1}`,
        run: index + 1,
        kind: row.kind as CommittedEvent["kind"],
        tool: normalize(row.tool) as string | null,
        version: row.version,
        valid: row.valid,
        payload: normalize(row.payload),
      });
  }
  const trace = CommittedTrace.parse({ scenario, description, events });
  expect(trace.events.filter((e) => e.kind === "call" && e.valid).length).toBeGreaterThan(0);
  writeFileSync(path.join(TRACES_DIR, `${scenario}.json`), `${JSON.stringify(trace, null, 2)}\n`);
}

describe("recording the demo scenarios' traces", () => {
  it("customer-lookup: an agent runtime reads customers and orders, and computes", async () => {
    await setup();
    const agent = await tracedAgent("Fiches clients", [crm.key("get_customer"), crm.key("list_orders"), "calculate"]);
    const runId = await run(agent);
    await ok(runId, crm.key("get_customer"), { customer_id: "C-1842" });
    await ok(runId, crm.key("list_orders"), { customer_id: "C-1842", limit: 5 });
    await ok(runId, "calculate", { expression: "(129.90 + 45.50) * 0.2" });
    await ok(runId, crm.key("get_customer"), { customer_id: "C-2001" });
    await write("customer-lookup", "Reads of CRM Acme's customers and orders, and a computation, through the API.", [
      runId,
    ]);
  });

  it("address-change: the README's tour — preview, approval, commit with the proposal id, operation read", async () => {
    await setup();
    const agent = await tracedAgent("Adresses", [
      crm.key("get_customer"),
      crm.key("preview_address_change"),
      crm.key("commit_address_change"),
      "get_operation",
    ]);
    const runId = await run(agent, "read_write");
    await ok(runId, crm.key("get_customer"), { customer_id: "C-1842" });
    const preview = await ok(runId, crm.key("preview_address_change"), {
      customer_id: "C-1842",
      destination: { kind: "saved", address_id: "ADDR-2" },
    });
    await approveOk(tenant, preview.evidence.proposal.id, "approver");
    const committed = await ok(runId, crm.key("commit_address_change"), { proposal_id: preview.evidence.proposal.id });
    await ok(runId, "get_operation", { operation_id: committed.evidence.operation });
    // A new address typed by the agent, previewed and left pending.
    await ok(runId, crm.key("preview_address_change"), {
      customer_id: "C-2001",
      destination: { kind: "new", line1: "3 place Bellecour", city: "Lyon", postal_code: "69002", country: "FR" },
    });
    await write("address-change", "A shipping address changed by the approval flow, through the API.", [runId]);
  });

  it("managed-address-change: the console's « Essayer » with the demo model script, approved, resumed", async () => {
    await setup();
    // The address-change scenario already moved C-1842 to Lyon: from CRM Acme's seed, the preview changes something.
    await resetCrm();
    const agent = await tracedAgent("Changements d’adresse", [
      crm.key("get_customer"),
      crm.key("preview_address_change"),
      crm.key("commit_address_change"),
    ]);
    // The demo script names CRM Acme's tools by pattern (mcp_*_get_customer): it fits this connector's id.
    const demo = JSON.parse(readFileSync("connectors/model-sim/demo/address-change.json", "utf8")) as ScriptBody;
    const script = await createScript(simBaseUrl, demo);
    const started = await api("/v1/runs", {
      json: {
        agent,
        input: "Changez l'adresse de livraison de C-1842 pour son adresse de Lyon.",
        instructions: script.marker,
        capabilities: "read_write",
        // The run goes on in the background: answered once it waits for the approval.
        wait: 60,
      },
      as: { key: tenant.key },
    });
    expect(started.status).toBe(201);
    expect(started.body.data.status).toBe("requires_approval");
    const runId = started.body.data.id as string;
    await approveOk(tenant, started.body.data.pending_proposals[0], "approver");
    await until(async () => {
      const current = (await api(`/v1/runs/${runId}`, { as: { key: tenant.key } })).body.data;
      return current.status === "completed" ? current : null;
    }, "the managed run to resume and complete");
    await write(
      "managed-address-change",
      "A managed run of the demo script: a read, a preview, the approval, the answer.",
      [runId],
    );
  });

  it("customer-care-writes: an e-mail, a refund, a suspension and a long bulk suspension followed to its end", async () => {
    await setup();
    const tools = [
      "get_customer",
      "send_email",
      "refund_payment",
      "suspend_invoice_delivery",
      "suspend_all_invoice_delivery",
    ];
    const agent = await tracedAgent("Service client", [...tools.map(crm.key), "get_operation"]);
    const runId = await run(agent, "read_write");
    const customer = await ok(runId, crm.key("get_customer"), { customer_id: "C-1842" });
    await approvedWrite(runId, "send_email", {
      to: [customer.result.email],
      subject: "Votre remboursement",
      body: "Bonjour, nous vous remboursons 5,00 € sur votre paiement PAY-9002.",
      customer_id: "C-1842",
    });
    await approvedWrite(runId, "refund_payment", {
      payment_id: "PAY-9002",
      amount: { value_minor: 500, currency: "EUR" },
      reason: "Geste commercial",
    });
    await approvedWrite(runId, "suspend_invoice_delivery", {
      customer_id: "C-2001",
      invoice_ids: ["INV-2001-001", "INV-2001-002"],
    });
    const accepted = await approvedWrite(runId, "suspend_all_invoice_delivery", { customer_id: "C-2001" });
    expect(accepted.result.status).toBe("running");
    const operation = { operation_id: accepted.evidence.operation };
    expect((await ok(runId, "get_operation", operation)).result.status).toBe("running");
    // Waited for outside the run (the job moves when its status is read), so the trace holds two reads whatever the timing.
    await until(async () => {
      const job = await callCrmDirectly("get_job_status", { job_id: accepted.result.job_id });
      return (job.structuredContent as { status?: string } | undefined)?.status === "succeeded";
    }, "the long suspension to finish");
    expect((await ok(runId, "get_operation", operation)).result.status).toBe("succeeded");
    await write(
      "customer-care-writes",
      "Every other write tool of CRM Acme, approved and committed, through the API.",
      [runId],
    );
  });
});
