import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractCases, type ContractCase } from "@/lib/contracts/cases";
import { proposalRefSchema, writeCallSchema } from "@/lib/proposals/write-schema";
import { startTestServer, type TestServer } from "@/tests/support/http-server";
import { callTool, connectCrm, createAgent, createRun, seedDataBases, upload } from "./dispatch-fixtures";
import { api, createTenant, crmState, testDb, type Tenant } from "./helpers";
import { publicTestOrigin } from "./server";
import { staleTargetCases } from "./write-recipes";

interface CatalogEntry {
  key: string;
  available: boolean;
  forced: boolean;
  writes_data: boolean;
}

// Contract tests generated from every schema a run can call: the tool list is
// the organization's catalog (GET /v1/tools), not a list written here. Each
// published input schema, from one valid example, through the real dispatcher:
// reads execute; writes go through the proposals engine, which narrows what a
// write call accepts (a commit with a preview takes only `{proposal_id}`; the
// other writes take their candidate arguments, without the key Guichet
// generates) — their refused cases make no proposal, their accepted ones wait
// for an approval, and no write ever executes. A catalog tool without an
// example, or a write missing its missing-field, bound, union or stale-target
// cases, fails the coverage test by name.

let acme: Tenant;
let page: TestServer;
let agentId: string;
let fileId: string;
interface RunContract {
  tool: string;
  version: number;
  effect: "read" | "write";
  input_schema: Record<string, unknown>;
  preview: string | null;
  idempotency: { key_field: string } | null;
  target: { type: string; id_pointer: string; version_pointer: string | null } | null;
}
let contracts: RunContract[];
let catalog: CatalogEntry[];
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
    suspend_all_invoice_delivery: { customer_id: "C-2001", idempotency_key: "contract-tests-0005" },
    get_job_status: { job_id: "job_0123456789abcdef" },
    cancel_job: { job_id: "job_0123456789abcdef", idempotency_key: "contract-tests-0006" },
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
    get_operation: { operation_id: "op_0123456789abcdefghijklmnop" },
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

/** More valid examples, where one example cannot reach every declared bound (each branch of a union). */
const moreExamples: Record<string, Record<string, unknown>[]> = {
  preview_address_change: [
    {
      customer_id: "C-1842",
      destination: { kind: "new", line1: "3 place Bellecour", city: "Lyon", postal_code: "69002", country: "FR" },
    },
  ],
};

function examplesOf(tool: string): unknown[] {
  return [example(tool), ...(moreExamples[tool.replace(/^mcp_\d+_/, "")] ?? [])];
}

/** Every generated case of a schema, from each valid example of the tool. */
const casesOf = (schema: Record<string, unknown>, tool: string, examples = examplesOf(tool)) =>
  examples.flatMap((valid) => contractCases(schema, valid));

/** A fresh read_write run every 100 calls, so the per-run limit never interferes. */
async function call(tool: string, args: unknown) {
  if (calls++ % 100 === 0)
    runId = (await createRun(acme, { agent: agentId, files: [fileId], capabilities: "read_write" })).run.id;
  return callTool(acme, runId, tool, args);
}

beforeAll(async () => {
  acme = await createTenant("pro");
  await connectCrm(acme);
  await seedDataBases(acme);
  page = await startTestServer((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("bonjour"));
  fileId = (await upload(acme, "/v1/files", "bonjour\nau revoir\n", "notes.txt")).id;
  catalog = (await api("/v1/tools", { as: { key: acme.key } })).body.data as CatalogEntry[];
  // Every tool the organization can give an agent; forced ones come with every agent.
  const tools = catalog.filter((entry) => entry.available && !entry.forced).map((entry) => entry.key);
  agentId = (await createAgent(acme, { tools })).id;
  const { run } = await createRun(acme, { agent: agentId, files: [fileId], capabilities: "read_write" });
  contracts = [];
  for (const entry of run.capability_set as { tool: string; version: number }[]) {
    const response = await api(`/v1/tools/${entry.tool}/contract?version=${entry.version}`, { as: { key: acme.key } });
    expect(response.status).toBe(200);
    const { effect, input_schema, preview, idempotency, target } = response.body.data;
    contracts.push({ tool: entry.tool, version: entry.version, effect, input_schema, preview, idempotency, target });
  }
});

afterAll(async () => page?.close());

const schemaRefusal = (envelope: any) =>
  !envelope.ok &&
  envelope.error.code === "INVALID_ARGUMENTS" &&
  String(envelope.error.message).startsWith("Invalid arguments at ");

const contractOf = (tool: string) => contracts.find((c) => c.tool === tool);

/** What a write call may carry, as the proposals engine narrows it: the candidate arguments, or a proposal reference. */
function writeArguments(contract: RunContract): { schema: Record<string, unknown>; example: Record<string, unknown> } {
  if (contract.preview) return { schema: proposalRefSchema, example: { proposal_id: `prop_${"0".repeat(26)}` } };
  const narrowed = writeCallSchema(contract) as { else: Record<string, unknown> };
  const { [contract.idempotency?.key_field ?? ""]: _key, ...candidate } = example(contract.tool) as Record<
    string,
    unknown
  >;
  return { schema: narrowed.else, example: candidate };
}

/** The schema of a write's business arguments: its preview's, when the write takes only a proposal. */
function businessSchema(contract: RunContract): Record<string, unknown> {
  return contract.preview ? contractOf(contract.preview)!.input_schema : writeArguments(contract).schema;
}

/** A write's cases through Guichet: on the write call itself, and on its preview when it has one. */
function writeCases(contract: RunContract): (ContractCase & { tool: string })[] {
  const own = writeArguments(contract);
  const cases = contractCases(own.schema, own.example).map((c) => ({ ...c, tool: contract.tool }));
  if (!contract.preview) return cases;
  const preview = contractOf(contract.preview)!;
  return [...cases, ...casesOf(preview.input_schema, preview.tool).map((c) => ({ ...c, tool: preview.tool }))];
}

/** What a generated case proves, by its name (lib/contracts/cases.ts). */
function caseKind(name: string): string {
  if (/ missing$/.test(name)) return "missing field";
  if (/too long|maximum|minimum|too few|too many|empty$/.test(name)) return "bound";
  if (/with an unknown |mixing in /.test(name)) return "union";
  return "other";
}

/** The kinds of case a write's schema calls for: a bound where it declares one, a union case where it has one. */
function expectedKinds(schema: Record<string, unknown>): string[] {
  const text = JSON.stringify(schema);
  return [
    "stale target",
    ...(/"required":\[[^\]]/.test(text) ? ["missing field"] : []),
    ...(/"(minLength|maxLength|minimum|maximum|minItems|maxItems)":/.test(text) ? ["bound"] : []),
    ...(/"(oneOf|anyOf)":/.test(text) ? ["union"] : []),
  ];
}

describe("contract tests generated from every schema of the run", () => {
  it("has a valid example for every tool of the catalog, and the dispatcher accepts each read", async () => {
    // The run holds every available tool of the catalog: the cases below are the catalog's.
    expect(contracts.map((c) => c.tool).sort()).toEqual(
      catalog
        .filter((entry) => entry.available)
        .map((entry) => entry.key)
        .sort(),
    );
    const missing = catalog.map((entry) => entry.key).filter((key) => example(key) === undefined);
    expect(missing, "tools without an example: add one with their contract").toEqual([]);
    for (const contract of contracts.filter((c) => c.effect === "read")) {
      const envelope = await call(contract.tool, example(contract.tool));
      expect(schemaRefusal(envelope), `${contract.tool}: ${JSON.stringify(envelope)}`).toBe(false);
    }
  });

  it("refuses each generated invalid case at its field and lets each exact bound through", async () => {
    const failures: string[] = [];
    let total = 0;
    for (const contract of contracts.filter((c) => c.effect === "read")) {
      const cases: ContractCase[] = casesOf(contract.input_schema, contract.tool);
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

  it("gives every write of the catalog its missing-field, bound, union and stale-target cases", () => {
    const writes = contracts.filter((c) => c.effect === "write");
    expect(writes.length).toBeGreaterThan(0);
    const stale = staleTargetCases();
    const coverage = Object.fromEntries(
      writes.map((contract) => {
        const kinds = new Set(writeCases(contract).map((c) => caseKind(c.name)));
        if (stale.has(contract.tool.replace(/^mcp_\d+_/, ""))) kinds.add("stale target");
        return [contract.tool, [...kinds].filter((kind) => kind !== "other").sort()];
      }),
    );
    const wanted = Object.fromEntries(
      writes.map((contract) => [contract.tool, expectedKinds(businessSchema(contract)).sort()]),
    );
    expect(coverage).toEqual(wanted);
  });

  it("runs each write's cases through Guichet: refusals at their field make no proposal, valid calls wait for approval", async () => {
    const db = await testDb();
    const before = JSON.stringify(await crmState());
    const failures: string[] = [];
    for (const contract of contracts.filter((c) => c.effect === "write")) {
      for (const c of writeCases(contract)) {
        const proposals = await db.proposal.count({ where: { organizationId: acme.organizationId } });
        const envelope = await call(c.tool, c.arguments);
        const made = (await db.proposal.count({ where: { organizationId: acme.organizationId } })) - proposals;
        const label = `${c.tool} ${c.name}`;
        if (c.expect === "refused") {
          if (!(
            envelope.ok === false &&
            envelope.error.code === "INVALID_ARGUMENTS" &&
            envelope.error.field === c.field
          ))
            failures.push(`${label}: expected INVALID_ARGUMENTS at ${c.field}, got ${JSON.stringify(envelope.error)}`);
          if (made !== 0) failures.push(`${label}: a refused call made ${made} proposal(s)`);
        } else if (schemaRefusal(envelope)) {
          failures.push(`${label}: refused by the schema: ${envelope.error.message}`);
        } else if (c.tool === contract.tool && !contract.preview && envelope.error?.code !== "APPROVAL_REQUIRED") {
          failures.push(`${label}: expected APPROVAL_REQUIRED, got ${JSON.stringify(envelope.error ?? envelope.ok)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    // Nothing of all this reached CRM Acme as a write.
    expect(JSON.stringify(await crmState())).toBe(before);
  });

  it("never lets a write through: a valid write call does not execute", async () => {
    const writes = contracts.filter((c) => c.effect === "write");
    // The catalog's writes, as it flags them, are the run's writes.
    expect(writes.map((c) => c.tool).sort()).toEqual(
      catalog
        .filter((entry) => entry.available && entry.writes_data)
        .map((entry) => entry.key)
        .sort(),
    );
    const before = JSON.stringify(await crmState());
    for (const contract of writes) {
      const envelope = await call(contract.tool, example(contract.tool));
      expect(envelope.ok).toBe(false);
      expect(["APPROVAL_REQUIRED", "INVALID_ARGUMENTS"]).toContain(envelope.error.code);
    }
    expect(JSON.stringify(await crmState())).toBe(before);
  });
});
