import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractCases, type ContractCase } from "@/lib/contracts/cases";
import { startTestServer, type TestServer } from "@/lib/net/test-http-server";
import {
  callTool,
  connectCrm,
  createAgent,
  createRun,
  seedDataBases,
  upload,
  type ConnectedCrm,
} from "./dispatch-fixtures";
import { api, createTenant, crmState, type Tenant } from "./helpers";
import { publicTestOrigin } from "./server";

// Contract tests generated from every schema a run can call: each published
// input schema, from one valid example, through the real dispatcher. A tool
// without an example here fails the suite, so a new tool
// comes with its contract tests. Write tools are called through the proposals
// engine, which narrows what a write call accepts (a commit takes only
// `{proposal_id}`): their cases belong to its suite; here they prove only that
// no write ever executes directly.

let acme: Tenant;
let crm: ConnectedCrm;
let page: TestServer;
let agentId: string;
let fileId: string;
let contracts: { tool: string; version: number; effect: "read" | "write"; input_schema: Record<string, unknown> }[];
let calls = 0;
let runId = "";

const crmExamples = (key: string): Record<string, unknown> =>
  ({
    get_customer: { customer_id: "C-1842" },
    list_orders: { customer_id: "C-1842", limit: 5 },
    preview_address_change: { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } },
    commit_address_change: {
      customer_id: "C-1842",
      destination: { kind: "saved", address_id: "ADDR-2" },
      expected_version: 17,
      idempotency_key: "contract-tests-0001",
    },
    get_operation_status: { idempotency_key: "contract-tests-0001" },
    send_email: {
      to: ["camille@example.com"],
      subject: "Bonjour",
      body: "Votre commande est partie.",
      idempotency_key: "contract-tests-0002",
    },
    refund_payment: {
      payment_id: "PAY-9001",
      amount: { value_minor: 100, currency: "EUR" },
      reason: "Geste commercial",
      idempotency_key: "contract-tests-0003",
    },
    suspend_invoice_delivery: {
      customer_id: "C-1842",
      invoice_ids: ["INV-1842-001"],
      idempotency_key: "contract-tests-0004",
    },
  })[key.replace(/^mcp_\d+_/, "")] as Record<string, unknown>;

function example(tool: string): unknown {
  const builtin: Record<string, unknown> = {
    calculate: { expression: "1 + 2" },
    create_chart: {
      type: "bar",
      title: "Ventes",
      x_label: "mois",
      y_label: "€",
      series: [{ name: "2026", points: [{ x: "jan", y: 3 }] }],
    },
    web_fetch: { url: `${publicTestOrigin(page.origin)}/page`, max_chars: 1000 },
    web_search: { query: "guichet", max_results: 5 },
    list_uploaded_files: {},
    inspect_file: { file_id: fileId },
    read_uploaded_file: { file_id: fileId, max_chars: 1000 },
    search_text: { query: "bonjour", file_ids: [fileId], case_sensitive: false, max_results: 5 },
    list_data_bases: { limit: 5 },
    describe_table: { data_base: "ventes", table: "produits" },
    query_table: {
      data_base: "ventes",
      table: "produits",
      columns: ["sku"],
      where: [{ column: "stock", op: "gt", value: 10 }],
      limit: 5,
    },
  };
  return tool.startsWith("mcp_") ? crmExamples(tool) : builtin[tool];
}

/** A fresh read_write run every 100 calls, so the per-run limit never interferes. */
async function call(tool: string, args: unknown) {
  if (calls++ % 100 === 0)
    runId = (await createRun(acme, { agent: agentId, files: [fileId], capabilities: "read_write" })).run.id;
  return callTool(acme, runId, tool, args);
}

beforeAll(async () => {
  acme = await createTenant("pro");
  crm = await connectCrm(acme);
  await seedDataBases(acme);
  page = await startTestServer((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("bonjour"));
  fileId = (await upload(acme, "/v1/files", "bonjour\nau revoir\n", "notes.txt")).id;
  const tools = [
    "create_chart",
    "list_data_bases",
    "describe_table",
    "query_table",
    ...[
      "get_customer",
      "list_orders",
      "preview_address_change",
      "commit_address_change",
      "get_operation_status",
      "send_email",
      "refund_payment",
      "suspend_invoice_delivery",
    ].map(crm.key),
  ];
  agentId = (await createAgent(acme, { tools })).id;
  const { run } = await createRun(acme, { agent: agentId, files: [fileId], capabilities: "read_write" });
  contracts = [];
  for (const entry of run.capability_set as { tool: string; version: number }[]) {
    const response = await api(`/v1/tools/${entry.tool}/contract?version=${entry.version}`, { as: { key: acme.key } });
    expect(response.status).toBe(200);
    contracts.push({
      tool: entry.tool,
      version: entry.version,
      effect: response.body.data.effect,
      input_schema: response.body.data.input_schema,
    });
  }
});

afterAll(async () => page?.close());

const schemaRefusal = (envelope: any) =>
  !envelope.ok &&
  envelope.error.code === "INVALID_ARGUMENTS" &&
  String(envelope.error.message).startsWith("Invalid arguments at ");

describe("contract tests generated from every schema of the run", () => {
  it("has a valid example for each of the run's 19 tools, and the dispatcher accepts each read", async () => {
    expect(contracts).toHaveLength(19);
    for (const contract of contracts) {
      expect(example(contract.tool), `no example for ${contract.tool}: add one with its contract`).toBeDefined();
    }
    for (const contract of contracts.filter((c) => c.effect === "read")) {
      const args = example(contract.tool);
      expect(args, `no example for ${contract.tool}: add one with its contract`).toBeDefined();
      const envelope = await call(contract.tool, args);
      expect(schemaRefusal(envelope), `${contract.tool}: ${JSON.stringify(envelope)}`).toBe(false);
    }
  });

  it("refuses each generated invalid case at its field and lets each exact bound through", async () => {
    const failures: string[] = [];
    let total = 0;
    for (const contract of contracts.filter((c) => c.effect === "read")) {
      const cases: ContractCase[] = contractCases(contract.input_schema, example(contract.tool));
      for (const c of cases) {
        total++;
        const envelope = await call(contract.tool, c.arguments);
        if (
          c.expect === "refused" &&
          !(envelope.ok === false && envelope.error.code === "INVALID_ARGUMENTS" && envelope.error.field === c.field)
        ) {
          failures.push(
            `${contract.tool} ${c.name}: expected INVALID_ARGUMENTS at ${c.field}, got ${JSON.stringify(envelope.error ?? envelope.ok)}`,
          );
        }
        if (c.expect === "accepted" && schemaRefusal(envelope))
          failures.push(`${contract.tool} ${c.name}: refused by the schema: ${envelope.error.message}`);
      }
    }
    expect(failures).toEqual([]);
    expect(total).toBeGreaterThan(150);
  });

  it("never lets a write through: a valid write call does not execute", async () => {
    const writes = contracts.filter((c) => c.effect === "write");
    expect(writes.map((c) => c.tool.replace(/^mcp_\d+_/, "")).sort()).toEqual([
      "commit_address_change",
      "refund_payment",
      "send_email",
      "suspend_invoice_delivery",
    ]);
    const before = JSON.stringify(await crmState());
    for (const contract of writes) {
      const envelope = await call(contract.tool, example(contract.tool));
      expect(envelope.ok).toBe(false);
      expect(["APPROVAL_REQUIRED", "INVALID_ARGUMENTS"]).toContain(envelope.error.code);
    }
    expect(JSON.stringify(await crmState())).toBe(before);
  });
});
