import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBoutique, type BoutiqueServer } from "./server";
import { call, connect, errorOf, signIn, structured } from "./test-helpers";

// Boutique's tools over MCP with real access tokens: each account sees and
// changes only its own orders; the cancel write follows the preview + commit +
// status-by-key protocol Guichet's proposal path uses with CRM Acme.

let boutique: BoutiqueServer;
let dana: Client;
let leo: Client;

beforeAll(async () => {
  boutique = await startBoutique({ controls: true });
  const danaAuth = await signIn(boutique.mcpUrl, boutique.issuer, "dana@boutique.test");
  const leoAuth = await signIn(boutique.mcpUrl, boutique.issuer, "leo@boutique.test");
  dana = await connect(boutique.mcpUrl, danaAuth.saved!.access_token);
  leo = await connect(boutique.mcpUrl, leoAuth.saved!.access_token);
});
afterAll(async () => {
  await dana?.close();
  await leo?.close();
  await boutique?.close();
});

const orderIds = (out: { orders: Array<{ order_id: string }> }) => out.orders.map((o) => o.order_id);

describe("reads act for the token's account", () => {
  it("list_orders shows Dana's orders to Dana and Léo's to Léo, counted per tool and account", async () => {
    boutique.controls!.resetCounters();
    const mine = structured(await call(dana, "list_orders", {}));
    expect(mine.account).toEqual({ email: "dana@boutique.test", name: "Dana Morel" });
    expect(orderIds(mine)).toEqual(["CMD-1001", "CMD-1002", "CMD-1003"]);
    expect(mine.orders[0]).toMatchObject({
      status: "paid",
      total: { value_minor: 4250, currency: "EUR" },
      summary: "1 × Théière en fonte",
    });
    const his = structured(await call(leo, "list_orders", {}));
    expect(his.account.email).toBe("leo@boutique.test");
    expect(orderIds(his)).toEqual(["CMD-2001", "CMD-2002"]);
    expect(orderIds(structured(await call(dana, "list_orders", { status: "shipped" })))).toEqual(["CMD-1002"]);
    expect(boutique.controls!.counters().calls).toEqual({
      list_orders: { "dana@boutique.test": 2, "leo@boutique.test": 1 },
    });
  });

  it("get_order reads one's own order; another account's order is not found", async () => {
    const order = structured(await call(dana, "get_order", { order_id: "CMD-1002" }));
    expect(order).toMatchObject({
      order_id: "CMD-1002",
      status: "shipped",
      total: { value_minor: 12900, currency: "EUR" },
      version: 1,
    });
    expect(order.items).toHaveLength(2);
    expect(errorOf(await call(dana, "get_order", { order_id: "CMD-2001" }))).toMatchObject({
      code: "NOT_FOUND",
      field: "/order_id",
    });
    expect(errorOf(await call(leo, "get_order", { order_id: "CMD-1001" })).code).toBe("NOT_FOUND");
  });

  it("refuses bad arguments with INVALID_ARGUMENTS and a pointer, unknown tools with a protocol error", async () => {
    expect(errorOf(await call(dana, "get_order", { order_id: "1001" }))).toMatchObject({
      code: "INVALID_ARGUMENTS",
      field: "/order_id",
    });
    expect(errorOf(await call(dana, "list_orders", { customer_id: "acct_leo" }))).toMatchObject({
      code: "INVALID_ARGUMENTS",
      field: "/customer_id",
    });
    await expect(call(dana, "delete_everything", {})).rejects.toThrow(/Unknown tool/);
  });
});

describe("the catalog", () => {
  it("describes reads as read-only and pairs commit_cancel_order with its preview and status tool", async () => {
    const { tools } = await dana.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual([
      "commit_cancel_order",
      "get_operation_status",
      "get_order",
      "list_orders",
      "preview_cancel_order",
    ]);
    for (const name of ["list_orders", "get_order", "preview_cancel_order", "get_operation_status"]) {
      expect(byName[name].annotations?.readOnlyHint).toBe(true);
    }
    const commit = byName.commit_cancel_order;
    expect(commit.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    // What Guichet derives the write's contract from: an *_id target, expected_version, idempotency_key, status tool by key.
    expect(commit.inputSchema.required).toEqual(["order_id", "expected_version", "idempotency_key"]);
    expect(commit.inputSchema.additionalProperties).toBe(false);
    expect(byName.get_operation_status.inputSchema.required).toEqual(["idempotency_key"]);
    expect(commit._meta?.["test.boutique/contract"]).toMatchObject({
      preview_tool: "preview_cancel_order",
      status_tool: "get_operation_status",
      idempotency_key_field: "idempotency_key",
    });
  });
});

describe("cancelling an order: preview, commit, status by key", () => {
  it("previews the concrete effect with the order's version and the refund", async () => {
    const preview = structured(await call(dana, "preview_cancel_order", { order_id: "CMD-1001" }));
    expect(preview).toMatchObject({
      target: { type: "order", id: "CMD-1001", version: 1 },
      arguments: { order_id: "CMD-1001" },
      changes: [{ field: "status", before: "paid", after: "cancelled" }],
      labels: { status: "Statut de la commande" },
      amount: { value_minor: 4250, currency: "EUR" },
      environment: "production",
      records_affected: 1,
      irreversible: true,
    });
    expect(preview.effect).toContain("42,50 €");
    expect(preview.effect).toContain("Dana Morel");
    expect(errorOf(await call(dana, "preview_cancel_order", { order_id: "CMD-1002" })).code).toBe(
      "ORDER_NOT_CANCELLABLE",
    );
    expect(errorOf(await call(leo, "preview_cancel_order", { order_id: "CMD-1001" })).code).toBe("NOT_FOUND");
  });

  it("commits once for two calls with the same idempotency key", async () => {
    boutique.controls!.resetCounters();
    const args = { order_id: "CMD-1001", expected_version: 1, idempotency_key: "cancel-CMD-1001-a1b2c3" };
    const first = await call(dana, "commit_cancel_order", args);
    const second = await call(dana, "commit_cancel_order", args);
    expect(structured(first)).toMatchObject({
      order_id: "CMD-1001",
      previous_version: 1,
      new_version: 2,
      status: "cancelled",
      refund: { value_minor: 4250, currency: "EUR" },
    });
    expect(structured(second)).toEqual(structured(first));
    expect(second._meta?.["test.boutique/replayed"]).toBe(true);
    expect(boutique.controls!.counters().commits).toEqual({ "cancel-CMD-1001-a1b2c3": 1 });
    const stored = boutique.controls!.orders().find((o) => o.order_id === "CMD-1001")!;
    expect(stored).toMatchObject({ status: "cancelled", version: 2, account_id: "acct_dana" });

    const status = structured(await call(dana, "get_operation_status", { idempotency_key: args.idempotency_key }));
    expect(status).toMatchObject({
      status: "succeeded",
      tool: "commit_cancel_order",
      result: structured(first),
    });
    // Keys are per account: Léo's view of the same key knows nothing.
    expect(structured(await call(leo, "get_operation_status", { idempotency_key: args.idempotency_key })).status).toBe(
      "not_found",
    );
    // The same key with other arguments is refused and writes nothing.
    expect(errorOf(await call(dana, "commit_cancel_order", { ...args, expected_version: 2 })).code).toBe(
      "IDEMPOTENCY_KEY_REUSED",
    );
    expect(boutique.controls!.counters().commits).toEqual({ "cancel-CMD-1001-a1b2c3": 1 });
  });

  it("refuses a stale version and records the refusal under its key", async () => {
    const args = { order_id: "CMD-2001", expected_version: 7, idempotency_key: "cancel-CMD-2001-stale" };
    expect(errorOf(await call(leo, "commit_cancel_order", args))).toMatchObject({
      code: "VERSION_CONFLICT",
      field: "/expected_version",
      details: { current_version: 1 },
    });
    const status = structured(await call(leo, "get_operation_status", { idempotency_key: args.idempotency_key }));
    expect(status).toMatchObject({ status: "failed", error: { code: "VERSION_CONFLICT" } });
    expect(boutique.controls!.orders().find((o) => o.order_id === "CMD-2001")).toMatchObject({
      status: "paid",
      version: 1,
    });
  });

  it("cannot cancel another account's order", async () => {
    const args = { order_id: "CMD-2001", expected_version: 1, idempotency_key: "dana-tries-leo-order" };
    expect(errorOf(await call(dana, "commit_cancel_order", args)).code).toBe("NOT_FOUND");
    expect(boutique.controls!.orders().find((o) => o.order_id === "CMD-2001")).toMatchObject({ status: "paid" });
  });
});
