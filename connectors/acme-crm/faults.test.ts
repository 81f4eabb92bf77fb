import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { call, control, errorOf, key, ok, outputValidator, setFaults, setUpTestCrm, state } from "./test-helpers";

const crm = setUpTestCrm();

const commitArgs = (idempotency_key: string) => ({
  customer_id: "C-1842",
  destination: { kind: "saved", address_id: "ADDR-3" },
  expected_version: 17,
  idempotency_key,
});

describe("control API", () => {
  it("merges fault settings, shows them and resets them", async () => {
    expect(await control(crm.t.crm.baseUrl, "GET", "/__control/faults")).toEqual({
      cut_after_commit: false,
      malformed_success: false,
      slow_ms: 0,
      status_down: false,
      tool_schema_variant: 1,
      hold_writes: false,
      hold_jobs: false,
    });
    await setFaults(crm.t.crm.baseUrl, { slow_ms: 5 });
    const merged = await setFaults(crm.t.crm.baseUrl, { status_down: true });
    expect(merged).toMatchObject({ slow_ms: 5, status_down: true, cut_after_commit: false });
    const reset = await control(crm.t.crm.baseUrl, "POST", "/__control/reset");
    expect(reset.faults).toMatchObject({ slow_ms: 0, status_down: false });
    await expect(setFaults(crm.t.crm.baseUrl, { slow_ms: -1 })).rejects.toThrow(/HTTP 400/);
    await expect(setFaults(crm.t.crm.baseUrl, { unplug: true })).rejects.toThrow(/HTTP 400/);
  });
});

describe("cut_after_commit", () => {
  it("commits, cuts the connection; the status tool then reports the stored result", async () => {
    await setFaults(crm.t.crm.baseUrl, { cut_after_commit: true });
    const k = key("cut");
    // A transport error (undici: "fetch failed", cause "other side closed"), no tool result.
    await expect(call(crm.client, "commit_address_change", commitArgs(k))).rejects.toThrow(
      /fetch failed|terminated|socket/i,
    );

    // The service did write, exactly once.
    const s = await state(crm.t.crm.baseUrl);
    const c = s.customers.find((x: any) => x.customer_id === "C-1842");
    expect(c.version).toBe(18);
    expect(c.shipping_address.city).toBe("Bordeaux");
    expect(s.operations).toHaveLength(1);

    // Reads are not cut; the unknown-outcome protocol asks the status tool.
    const status = await ok(crm.client, "get_operation_status", { idempotency_key: k });
    expect(status).toMatchObject({ status: "succeeded", tool: "commit_address_change", error: null });
    expect(crm.checkOutput("commit_address_change", status.result)).toBeNull();
    expect(status.result).toMatchObject({
      previous_version: 17,
      new_version: 18,
      operation_id: s.operations[0].operation_id,
    });

    // Once the connection behaves, a retry with the same key returns the same stored result.
    await setFaults(crm.t.crm.baseUrl, { cut_after_commit: false });
    const retry = await call(crm.client, "commit_address_change", commitArgs(k));
    expect(retry.structuredContent).toEqual(status.result);
    expect(retry._meta?.["com.acme.crm/replayed"]).toBe(true);
    expect((await state(crm.t.crm.baseUrl)).customers.find((x: any) => x.customer_id === "C-1842").version).toBe(18);
  });
});

describe("malformed_success", () => {
  it("answers a success that breaks the output schema (and the write still happened)", async () => {
    await setFaults(crm.t.crm.baseUrl, { malformed_success: true });
    const k = key("malformed");
    const r = await call(crm.client, "commit_address_change", commitArgs(k));
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).not.toHaveProperty("new_version");
    expect(crm.checkOutput("commit_address_change", r.structuredContent)).not.toBeNull();
    expect((await state(crm.t.crm.baseUrl)).customers.find((x: any) => x.customer_id === "C-1842").version).toBe(18);

    // The SDK's validating callTool (after listTools) rejects it as well.
    await expect(crm.client.callTool({ name: "get_customer", arguments: { customer_id: "C-1842" } })).rejects.toThrow(
      /does not match the tool's output schema/,
    );

    await setFaults(crm.t.crm.baseUrl, { malformed_success: false });
    const status = await ok(crm.client, "get_operation_status", { idempotency_key: k });
    expect(crm.checkOutput("commit_address_change", status.result)).toBeNull();
  });
});

describe("slow_ms", () => {
  it("delays tools/call: a client timeout shorter than the delay fires", async () => {
    await setFaults(crm.t.crm.baseUrl, { slow_ms: 30_000 });
    const err = await call(crm.client, "get_customer", { customer_id: "C-1842" }, { timeout: 150 }).catch((e) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(ErrorCode.RequestTimeout);
  });

  it("a call with a long enough timeout completes, no sooner than slow_ms", async () => {
    await setFaults(crm.t.crm.baseUrl, { slow_ms: 250 });
    const started = performance.now();
    const c = await ok(crm.client, "get_customer", { customer_id: "C-1842" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(245);
    expect(c.version).toBe(17);
  });
});

describe("hold_writes", () => {
  it("holds write calls until switched off while reads and the status tool answer; the held write then lands once", async () => {
    const k = key("hold");
    await setFaults(crm.t.crm.baseUrl, { hold_writes: true });
    const pending = ok(crm.client, "commit_address_change", commitArgs(k));
    // Waits for the CRM to say it holds the write: no timing assumption.
    while ((await control(crm.t.crm.baseUrl, "GET", "/__control/held")).writes !== 1)
      await new Promise((r) => setImmediate(r));
    expect((await ok(crm.client, "get_operation_status", { idempotency_key: k })).status).toBe("not_found");
    expect((await ok(crm.client, "get_customer", { customer_id: "C-1842" })).version).toBe(17);
    await setFaults(crm.t.crm.baseUrl, { hold_writes: false });
    expect((await pending).new_version).toBe(18);
    expect((await control(crm.t.crm.baseUrl, "GET", "/__control/held")).writes).toBe(0);
    expect((await ok(crm.client, "get_operation_status", { idempotency_key: k })).status).toBe("succeeded");
  });
});

describe("status_down", () => {
  it("makes get_operation_status answer HTTP 503 while other tools work", async () => {
    const k = key("down");
    await ok(crm.client, "commit_address_change", commitArgs(k));
    await setFaults(crm.t.crm.baseUrl, { status_down: true });
    const err = await call(crm.client, "get_operation_status", { idempotency_key: k }).catch((e) => e);
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect((err as StreamableHTTPError).code).toBe(503);
    await ok(crm.client, "get_customer", { customer_id: "C-1842" });
    await setFaults(crm.t.crm.baseUrl, { status_down: false });
    expect((await ok(crm.client, "get_operation_status", { idempotency_key: k })).status).toBe("succeeded");
  });
});

describe("tool_schema_variant", () => {
  it("changes get_customer's published contract so a re-sync sees a difference", async () => {
    const v1 = (await crm.client.listTools()).tools;
    await setFaults(crm.t.crm.baseUrl, { tool_schema_variant: 2 });
    const v2 = (await crm.client.listTools()).tools;
    const g1 = v1.find((x) => x.name === "get_customer")!;
    const g2 = v2.find((x) => x.name === "get_customer")!;
    expect(g2.inputSchema).not.toEqual(g1.inputSchema);
    expect(g2.description).not.toEqual(g1.description);
    expect((g2.inputSchema.properties as any).include).toBeDefined();
    for (const tool of v1.filter((x) => x.name !== "get_customer")) {
      expect(v2.find((x) => x.name === tool.name)).toEqual(tool);
    }
    // The server enforces whichever contract it currently publishes.
    const c = await ok(crm.client, "get_customer", { customer_id: "C-1842", include: ["orders_count"] });
    expect(c.orders_count).toBe(25);
    expect(outputValidator(v2)("get_customer", c)).toBeNull();
    await setFaults(crm.t.crm.baseUrl, { tool_schema_variant: 1 });
    const r = await call(crm.client, "get_customer", { customer_id: "C-1842", include: ["orders_count"] });
    expect(errorOf(r)).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/include" });
  });

  it("variant 3 breaks variant 2: include becomes required and loses orders_count", async () => {
    await setFaults(crm.t.crm.baseUrl, { tool_schema_variant: 3 });
    const g3 = (await crm.client.listTools()).tools.find((x) => x.name === "get_customer")!;
    expect(g3.inputSchema.required).toEqual(["customer_id", "include"]);
    const missing = await call(crm.client, "get_customer", { customer_id: "C-1842" });
    expect(errorOf(missing)).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/include" });
    const dropped = await call(crm.client, "get_customer", { customer_id: "C-1842", include: ["orders_count"] });
    expect(errorOf(dropped)).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/include/0" });
    const c = await ok(crm.client, "get_customer", { customer_id: "C-1842", include: ["saved_addresses_count"] });
    expect(c.customer_id).toBe("C-1842");
    await setFaults(crm.t.crm.baseUrl, { tool_schema_variant: 1 });
  });
});
