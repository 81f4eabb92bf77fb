import { beforeAll, expect, it } from "vitest";
import { createAgent } from "./agents-helpers";
import { api, createTenant, testDb, type Tenant } from "./helpers";

// Idempotency-Key on tool calls: the same guarantees (same key + other body
// refused, duplicates one at a time) without ever storing a tool result.

let tenant: Tenant;
let runId: string;

beforeAll(async () => {
  tenant = await createTenant("pro");
  const agent = await createAgent(tenant, { name: "Idempotent calls" });
  const run = await api("/v1/runs", { json: { agent: agent.id }, as: { key: tenant.key } });
  expect(run.status).toBe(201);
  runId = run.body.data.id;
});

const call = (expression: string, key: string) =>
  api(`/v1/runs/${runId}/tool_calls`, {
    json: { tool: "calculate", arguments: { expression } },
    headers: { "idempotency-key": key },
    as: { key: tenant.key },
  });

it("runs a completed duplicate again instead of replaying a stored result, and stores no payload", async () => {
  const first = await call("987654 + 1", "calc-1");
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({ ok: true, result: { result: 987655 } });
  const second = await call("987654 + 1", "calc-1");
  expect(second.status).toBe(200);
  expect(second.body).toMatchObject({ ok: true, result: { result: 987655 } });
  expect(second.headers.get("idempotent-replayed")).toBe("re-executed");

  const db = await testDb();
  const records = await db.idempotentRequest.findMany({
    where: { organizationId: tenant.organizationId, key: "calc-1" },
  });
  expect(records).toHaveLength(1);
  expect(records[0]).toMatchObject({ state: "done", responseStatus: 200, responseBody: null });
  expect(JSON.stringify(records)).not.toContain("987655");
});

it("refuses the same key with other arguments: 422 idempotency_key_reused, nothing executed", async () => {
  await call("2 + 2", "calc-2");
  const db = await testDb();
  const stepsBefore = await db.step.count({ where: { runId } });
  const reused = await call("3 + 3", "calc-2");
  expect(reused.status).toBe(422);
  expect(reused.body.error.code).toBe("idempotency_key_reused");
  expect(await db.step.count({ where: { runId } })).toBe(stepsBefore);
});

it("answers 409 request_in_progress while the same key is running", async () => {
  await call("5 * 5", "calc-3");
  const db = await testDb();
  // The first request's record, claimed as running (as a concurrent duplicate would find it).
  await db.idempotentRequest.updateMany({
    where: { organizationId: tenant.organizationId, key: "calc-3" },
    data: { state: "in_progress" },
  });
  const duplicate = await call("5 * 5", "calc-3");
  expect(duplicate.status).toBe(409);
  expect(duplicate.body.error.code).toBe("request_in_progress");
});
