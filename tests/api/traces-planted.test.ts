import { afterAll, beforeAll, expect, it } from "vitest";
import { connectCrm, type ConnectedCrm } from "./dispatch-fixtures";
import { api, createTenant, startSuiteInstance, storedText, testDb, type Tenant } from "./helpers";
import { startApp } from "./server";

// A traced run whose arguments and results carry a planted API-key-like
// secret, e-mail addresses and an IBAN, on an instance of its own logging at
// debug level: every table is dumped afterwards and no trace row holds any
// planted value, and neither does anything the server printed.

const SECRET = "sk-live-7Hq2ZpX9mW4cR8tY1uV6bN3kJ5dF0gLa";
const EMAIL = "planted.witness@trace-test.example";
const IBAN = "FR7630006000011234567890189";
const SPACED_IBAN = "FR76 3000 6000 0112 3456 7890 189";
// CRM Acme answers get_customer with the customer's e-mail: a planted value in a result. Other test
// files store it legitimately (the effect of an e-mail they propose), so the whole-database scan looks for
// the values only this file plants, and every trace row is scanned for all of them.
const RESULT_EMAIL = "camille.martin@example.com";
const UNIQUE = [SECRET, EMAIL, IBAN, SPACED_IBAN];
const PLANTED = [...UNIQUE, RESULT_EMAIL];

let tenant: Tenant;
let crm: ConnectedCrm;
let app: Awaited<ReturnType<typeof startApp>>;

async function on(path: string, body: unknown, caller: { key?: string; cookie?: string }, method = "POST") {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (caller.key) headers.authorization = `Bearer ${caller.key}`;
  if (caller.cookie) headers.cookie = caller.cookie;
  const response = await fetch(`${app.baseUrl}${path}`, { method, headers, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

beforeAll(async () => {
  tenant = await createTenant();
  crm = await connectCrm(tenant);
  app = await startSuiteInstance({ GUICHET_LOG_LEVEL: "debug" });
});

afterAll(async () => app?.stop());

it("stores no planted secret, e-mail or IBAN in any trace, and logs none of them", async () => {
  const db = await testDb();
  const created = await api("/v1/agents", {
    json: {
      name: "Planted",
      tools: [crm.key("get_customer"), crm.key("preview_address_change")],
      trace: "redacted",
    },
    as: await tenant.as("admin"),
  });
  expect(created.status).toBe(201);
  const agent = created.body.data;
  const run = await on("/v1/runs", { agent: agent.id, capabilities: "read_write" }, { key: tenant.key });
  expect(run.status).toBe(201);
  const runId = run.body.data.id as string;
  const call = (tool: string, args: unknown) =>
    on(`/v1/runs/${runId}/tool_calls`, { tool, arguments: args }, { key: tenant.key });

  // A secret under a secret-looking key, and one in free text: refused by validation, recorded all the same.
  const refused = await call(crm.key("get_customer"), {
    customer_id: "C-1842",
    api_key: SECRET,
    note: `${EMAIL} ${SECRET}`,
  });
  expect(refused.body.error.code).toBe("INVALID_ARGUMENTS");
  // The customer's e-mail comes back in the result.
  expect((await call(crm.key("get_customer"), { customer_id: "C-1842" })).body.ok).toBe(true);
  // An e-mail and an IBAN in a new address: in the arguments, and back in the preview's result.
  const preview = await call(crm.key("preview_address_change"), {
    customer_id: "C-1842",
    destination: {
      kind: "new",
      line1: `3 rue des Témoins ${EMAIL} IBAN ${SPACED_IBAN} ${IBAN}`,
      city: "Paris",
      country: "FR",
    },
  });
  expect(preview.body.ok).toBe(true);
  expect(JSON.stringify(preview.body.result)).toContain(SPACED_IBAN);

  const traces = await db.traceEvent.findMany({ where: { runId } });
  expect(traces.map((t) => t.kind).sort()).toEqual(["call", "call", "call", "catalog"]);
  const traceText = JSON.stringify(traces);
  for (const value of PLANTED) expect(traceText).not.toContain(value);
  // The placeholders are there instead, shaped like what they replace.
  expect(traceText).toContain("xxxxxxx.xxxxxxx@xxxxx-xxxx.xxxxxxx");
  expect(traceText).toContain("XX11 1111 1111 1111 1111 1111 111");

  // Every table, dumped: no planted value anywhere (no debug flag, so steps keep only hashes), the trace's
  // placeholders there (the dump does read the trace rows).
  const dump = await storedText();
  for (const value of UNIQUE) expect(dump).not.toContain(value);
  const everyTrace = await db.$queryRaw<unknown[]>`SELECT * FROM "TraceEvent"`;
  for (const value of PLANTED) expect(JSON.stringify(everyTrace)).not.toContain(value);
  expect(dump).toContain("xxxxxxx.xxxxxxx@xxxxx-xxxx.xxxxxxx");
  const rows = await db.$queryRaw<unknown[]>`SELECT * FROM "TraceEvent" WHERE "runId" = ${runId}`;
  expect(rows).toHaveLength(4);
  for (const value of PLANTED) expect(JSON.stringify(rows)).not.toContain(value);

  const log = app.log();
  expect(log).toContain(runId);
  for (const value of PLANTED) expect(log).not.toContain(value);
});
