import { beforeAll, describe, expect, it } from "vitest";
import { callTool, createAgent, createRun } from "./dispatch-fixtures";
import { api, createTenant, type Tenant } from "./helpers";

// GET /v1/telemetry: counters per tool@version, per error code and field,
// hour by hour — for the organization only.

let acme: Tenant;
let other: Tenant;

beforeAll(async () => {
  acme = await createTenant("pro");
  other = await createTenant("pro");
  const agent = await createAgent(acme, { tools: ["create_chart"] });
  const { run } = await createRun(acme, { agent: agent.id });
  for (const expression of ["1 + 1", "2 * 3", "7 - 1"]) await callTool(acme, run.id, "calculate", { expression });
  await callTool(acme, run.id, "calculate", { expression: "" });
  await callTool(acme, run.id, "calculate", { expression: "1", extra: true });
  await callTool(acme, run.id, "create_chart", {
    type: "radar",
    title: "T",
    series: [{ name: "s", points: [{ x: 1, y: 1 }] }],
  });
  await callTool(acme, run.id, "teleport", {});
});

describe("GET /v1/telemetry", () => {
  it("counts calls per tool@version and validation errors per code and field", async () => {
    const response = await api("/v1/telemetry", { as: { key: await acme.keyWith(["runs:read"]) } });
    expect(response.status).toBe(200);
    const data = response.body.data;
    expect(data.totals).toMatchObject({ calls: 7, errors: 4, validation_errors: 4, retries: 0, output_errors: 0 });
    expect(data.calls).toEqual(
      [
        { tool: "calculate", version: 1, calls: 5, errors: 2 },
        { tool: "", version: 0, calls: 1, errors: 1 },
        { tool: "create_chart", version: 2, calls: 1, errors: 1 },
      ].sort((a, b) => b.calls - a.calls || a.tool.localeCompare(b.tool)),
    );
    expect(data.errors_by_code).toEqual(
      expect.arrayContaining([
        { code: "INVALID_ARGUMENTS", count: 3 },
        { code: "UNKNOWN_TOOL", count: 1 },
      ]),
    );
    expect(data.validation_errors).toEqual(
      expect.arrayContaining([
        { tool: "calculate", version: 1, code: "INVALID_ARGUMENTS", field: "/expression", count: 1 },
        { tool: "calculate", version: 1, code: "INVALID_ARGUMENTS", field: "/extra", count: 1 },
        { tool: "create_chart", version: 2, code: "INVALID_ARGUMENTS", field: "/type", count: 1 },
        { tool: "", version: 0, code: "UNKNOWN_TOOL", field: "", count: 1 },
      ]),
    );
    expect(data.series).toHaveLength(24);
    const summed = data.series.reduce(
      (sum: { calls: number; errors: number }, p: { calls: number; errors: number }) => ({
        calls: sum.calls + p.calls,
        errors: sum.errors + p.errors,
      }),
      { calls: 0, errors: 0 },
    );
    expect(summed).toEqual({ calls: 7, errors: 4 });
  });

  it("is the organization's own: another one sees nothing of it", async () => {
    const response = await api("/v1/telemetry?hours=1", { as: { key: other.key } });
    expect(response.body.data.totals.calls).toBe(0);
    expect(response.body.data.series).toHaveLength(1);
  });

  it("validates its window and needs runs:read", async () => {
    expect((await api("/v1/telemetry?hours=0", { as: { key: acme.key } })).status).toBe(400);
    expect((await api("/v1/telemetry?from=yesterday", { as: { key: acme.key } })).body.error.code).toBe(
      "unknown_parameter",
    );
    expect((await api("/v1/telemetry", { as: { key: await acme.keyWith(["files:read"]) } })).status).toBe(403);
    expect((await api("/v1/telemetry", { as: await acme.as("viewer") })).status).toBe(200);
  });
});
