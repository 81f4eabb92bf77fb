import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Contract } from "@/lib/contracts/types";
import { readStatusAnswer } from "@/lib/operations/status";
import { draftFromPreview } from "@/lib/proposals/draft";
import { startBoutique, type BoutiqueServer } from "./server";
import { call, connect, signIn, structured } from "./test-helpers";

// Boutique against Guichet's own readers of the write protocol (the only test
// here that imports Guichet): the preview becomes a proposal, the proposal's
// arguments commit, and the status tool's answer reads as a recorded success.

let boutique: BoutiqueServer;
let leo: Client;

beforeAll(async () => {
  boutique = await startBoutique({ controls: true });
  const auth = await signIn(boutique.mcpUrl, boutique.issuer, "leo@boutique.test");
  leo = await connect(boutique.mcpUrl, auth.saved!.access_token);
});
afterAll(async () => {
  await leo?.close();
  await boutique?.close();
});

/** What lib/contracts/mcp.ts derives for commit_cancel_order (an *_id target, expected_version, idempotency_key). */
const commitContract = {
  key: "mcp:1:commit_cancel_order",
  kind: "mcp",
  effect: "write",
  retry: "idempotent",
  idempotency: { key_field: "idempotency_key" },
  preview: "mcp:1:preview_cancel_order",
  target: { type: "order", id_pointer: "/order_id", version_pointer: "/expected_version" },
  status_tool: "mcp:1:get_operation_status",
  mcp: { server_id: 1, tool: "commit_cancel_order" },
} as unknown as Contract;

describe("Guichet's proposal path", () => {
  it("turns the preview into a payment proposal whose arguments commit exactly once", async () => {
    const preview = structured(await call(leo, "preview_cancel_order", { order_id: "CMD-2001" }));
    const draft = draftFromPreview(commitContract, preview);
    expect(draft.arguments).toEqual({ order_id: "CMD-2001", expected_version: 1 });
    expect(draft.target).toEqual({ type: "order", id: "CMD-2001", version: 1 });
    expect(draft.amount).toEqual({ value_minor: 6400, currency: "EUR" });
    expect(draft.action).toBe("payment"); // a refund: Guichet's default policies ask for an approval
    expect(draft.irreversible).toBe(true);
    expect(draft.changes).toEqual([
      { field: "status", label: "Statut de la commande", before: "paid", after: "cancelled" },
    ]);

    const key = "gx-proposal-0001";
    const committed = structured(await call(leo, "commit_cancel_order", { ...draft.arguments, idempotency_key: key }));
    expect(committed).toMatchObject({ order_id: "CMD-2001", new_version: 2 });
    const answer = structured(await call(leo, "get_operation_status", { idempotency_key: key }));
    expect(readStatusAnswer(answer, "commit_cancel_order")).toEqual({ kind: "succeeded", result: committed });
    const unknown = structured(await call(leo, "get_operation_status", { idempotency_key: "gx-never-sent" }));
    expect(readStatusAnswer(unknown, "commit_cancel_order").kind).toBe("unknown");
    expect(boutique.controls!.counters().commits).toEqual({ [key]: 1 });
  });
});
