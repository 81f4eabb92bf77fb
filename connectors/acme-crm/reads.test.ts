import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, connect, fails, ok, outputValidator, resetAll, startTestCrm, type TestCrm } from "./test-helpers";

let t: TestCrm;
let client: Client;
let tools: Tool[];
let checkOutput: ReturnType<typeof outputValidator>;

beforeAll(async () => {
  t = await startTestCrm();
  client = await connect(t.crm.url);
  tools = (await client.listTools()).tools;
  checkOutput = outputValidator(tools);
});
afterAll(async () => {
  await client?.close();
  await t?.close();
});
beforeEach(() => resetAll(t.crm.baseUrl));

/** Every object schema reachable from `schema`, with its JSON pointer. */
function objectSchemas(schema: any, at = ""): Array<{ at: string; schema: any }> {
  if (!schema || typeof schema !== "object") return [];
  const out: Array<{ at: string; schema: any }> = [];
  const types = ([] as string[]).concat(schema.type ?? []);
  if (types.includes("object") || schema.properties) out.push({ at, schema });
  for (const [k, v] of Object.entries(schema.properties ?? {})) out.push(...objectSchemas(v, `${at}/properties/${k}`));
  if (schema.items) out.push(...objectSchemas(schema.items, `${at}/items`));
  for (const kw of ["oneOf", "anyOf", "allOf"]) {
    (schema[kw] ?? []).forEach((s: unknown, i: number) => out.push(...objectSchemas(s, `${at}/${kw}/${i}`)));
  }
  return out;
}

describe("catalog", () => {
  it("lists the eleven tools with exact names", () => {
    expect(tools.map((x) => x.name).sort()).toEqual(
      [
        "cancel_job",
        "commit_address_change",
        "get_job_status",
        "get_customer",
        "get_operation_status",
        "list_orders",
        "preview_address_change",
        "refund_payment",
        "send_email",
        "suspend_all_invoice_delivery",
        "suspend_invoice_delivery",
      ].sort(),
    );
  });

  it("closes every input object schema (additionalProperties: false)", () => {
    for (const tool of tools) {
      const objects = objectSchemas(tool.inputSchema);
      expect(objects.length).toBeGreaterThan(0);
      for (const o of objects) expect(o.schema.additionalProperties, `${tool.name} input ${o.at}`).toBe(false);
    }
  });

  it("closes output object schemas, except the free-form stored result and error details", () => {
    const open = new Set(["get_operation_status /properties/result", "* /properties/details"]);
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toBeDefined();
      for (const o of objectSchemas(tool.outputSchema)) {
        if (open.has(`${tool.name} ${o.at}`) || o.at.endsWith("/properties/details")) continue;
        expect(o.schema.additionalProperties, `${tool.name} output ${o.at}`).toBe(false);
      }
    }
  });

  it("publishes the destination as a discriminated union and country as ^[A-Z]{2}$", () => {
    const preview = tools.find((x) => x.name === "preview_address_change")!;
    const dest = (preview.inputSchema.properties as any).destination;
    expect(dest.oneOf.map((b: any) => b.properties.kind.const)).toEqual(["saved", "new"]);
    expect(dest.oneOf[1].properties.country.pattern).toBe("^[A-Z]{2}$");
    expect(dest.oneOf[1].required).toEqual(["kind", "line1", "city", "country"]);
  });

  it("annotates reads and writes", () => {
    const ann = Object.fromEntries(tools.map((x) => [x.name, x.annotations]));
    for (const name of ["get_customer", "list_orders", "preview_address_change", "get_operation_status"]) {
      expect(ann[name]?.readOnlyHint, name).toBe(true);
    }
    expect(ann.commit_address_change).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(ann.send_email).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
    expect(ann.refund_payment).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(ann.suspend_invoice_delivery).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    const writes = tools.filter((x) => x.annotations?.readOnlyHint === false);
    for (const w of writes) expect((w.inputSchema.required as string[]).includes("idempotency_key"), w.name).toBe(true);
  });

  it("answers an unknown tool with a protocol error", async () => {
    await expect(call(client, "execute_action", { action: "x" })).rejects.toThrow(/Unknown tool/);
  });
});

describe("get_customer", () => {
  it("returns C-1842 at version 17 with its addresses", async () => {
    const c = await ok(client, "get_customer", { customer_id: "C-1842" });
    expect(checkOutput("get_customer", c)).toBeNull();
    expect(c).toMatchObject({ customer_id: "C-1842", name: "Camille Martin", version: 17 });
    expect(c.shipping_address).toEqual({
      line1: "8 rue des Lilas",
      city: "Paris",
      postal_code: "75011",
      country: "FR",
    });
    expect(c.saved_addresses.map((a: any) => a.address_id)).toEqual(["ADDR-1", "ADDR-2", "ADDR-3"]);
  });

  it("also works through the SDK's validating callTool, with a text block carrying the same JSON", async () => {
    const r = await client.callTool({ name: "get_customer", arguments: { customer_id: "C-1842" } });
    const content = r.content as Array<{ type: string; text: string }>;
    expect(JSON.parse(content[0].text)).toEqual(r.structuredContent);
  });

  it("answers NOT_FOUND for an unknown customer", async () => {
    expect(await fails(client, "get_customer", { customer_id: "C-9999" })).toMatchObject({
      code: "NOT_FOUND",
      field: "/customer_id",
      retryable: false,
    });
  });
});

describe("list_orders", () => {
  it("pages through all of C-1842's orders with the cursor, newest first", async () => {
    const seen: any[] = [];
    const pageSizes: number[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await ok(client, "list_orders", { customer_id: "C-1842", ...(cursor ? { cursor } : {}) });
      expect(checkOutput("list_orders", page)).toBeNull();
      pageSizes.push(page.orders.length);
      seen.push(...page.orders);
      cursor = page.next_cursor;
    } while (cursor);
    expect(pageSizes).toEqual([10, 10, 5]);
    expect(new Set(seen.map((o) => o.order_id)).size).toBe(25);
    const dates = seen.map((o) => o.created_at);
    expect([...dates].sort().reverse()).toEqual(dates);
    expect(seen[0].total).toEqual({ value_minor: expect.any(Number), currency: "EUR" });
  });

  it("honours limit, and refuses a cursor from another customer", async () => {
    const page = await ok(client, "list_orders", { customer_id: "C-1842", limit: 50 });
    expect(page.orders).toHaveLength(25);
    expect(page.next_cursor).toBeNull();
    const first = await ok(client, "list_orders", { customer_id: "C-1842", limit: 1 });
    expect(await fails(client, "list_orders", { customer_id: "C-2001", cursor: first.next_cursor })).toMatchObject({
      code: "INVALID_ARGUMENTS",
      field: "/cursor",
    });
  });
});

describe("preview_address_change", () => {
  it("resolves a saved address into canonical arguments against version 17", async () => {
    const p = await ok(client, "preview_address_change", {
      customer_id: "C-1842",
      destination: { kind: "saved", address_id: "ADDR-2" },
    });
    expect(checkOutput("preview_address_change", p)).toBeNull();
    expect(p.target).toEqual({ type: "customer", id: "C-1842", version: 17 });
    expect(p.arguments).toEqual({ customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } });
    expect(p.changes).toEqual([
      {
        field: "shipping_address",
        before: { line1: "8 rue des Lilas", city: "Paris", postal_code: "75011", country: "FR" },
        after: { line1: "24 quai Saint-Antoine", city: "Lyon", postal_code: "69002", country: "FR" },
      },
    ]);
    expect(p).toMatchObject({ environment: "production", records_affected: 1, irreversible: false });
    expect(p.effect).toMatch(/^Remplacer l’adresse de livraison du client C-1842/);
    expect(p.labels).toEqual({ shipping_address: "Adresse de livraison" });
  });

  it("normalises a new address and writes nothing", async () => {
    const p = await ok(client, "preview_address_change", {
      customer_id: "C-1842",
      destination: {
        kind: "new",
        line1: "  3   rue du Port ",
        city: " Marseille",
        postal_code: " 13002",
        country: "FR",
      },
    });
    expect(p.arguments.destination).toEqual({
      kind: "new",
      line1: "3 rue du Port",
      city: "Marseille",
      postal_code: "13002",
      country: "FR",
    });
    const c = await ok(client, "get_customer", { customer_id: "C-1842" });
    expect(c.version).toBe(17);
    expect(c.shipping_address.city).toBe("Paris");
  });

  it("answers NOT_FOUND for an unknown customer or another customer's saved address", async () => {
    expect(
      await fails(client, "preview_address_change", {
        customer_id: "C-4040",
        destination: { kind: "saved", address_id: "ADDR-1" },
      }),
    ).toMatchObject({ code: "NOT_FOUND", field: "/customer_id" });
    expect(
      await fails(client, "preview_address_change", {
        customer_id: "C-1842",
        destination: { kind: "saved", address_id: "ADDR-4" },
      }),
    ).toMatchObject({ code: "NOT_FOUND", field: "/destination/address_id" });
  });
});
