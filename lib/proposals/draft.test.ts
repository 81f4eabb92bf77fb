import { describe, expect, it } from "vitest";
import type { Contract } from "@/lib/contracts/types";
import { draftFromArguments, draftFromPreview, DraftError, policyFacts } from "./draft";

function contract(tool: string, extra: Partial<Contract> = {}): Contract {
  return {
    key: `mcp_7_${tool}`,
    version: 1,
    kind: "mcp",
    input_schema: { type: "object" },
    output_schema: { type: "object" },
    effect: "write",
    retry: "idempotent",
    idempotency: { key_field: "idempotency_key" },
    preview: null,
    target: null,
    status_tool: "mcp_7_get_operation_status",
    timeout_ms: 30_000,
    max_argument_bytes: 32_768,
    result_view: [""],
    cancellation: "not_interruptible",
    mcp: { server_id: 7, tool },
    ...extra,
  };
}

const commitAddress = contract("commit_address_change", {
  preview: "mcp_7_preview_address_change",
  target: { type: "customer", id_pointer: "/customer_id", version_pointer: "/expected_version" },
});

const preview = {
  target: { type: "customer", id: "C-1842", version: 17 },
  arguments: { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } },
  effect: "Remplacer l’adresse de livraison du client C-1842.",
  changes: [{ field: "shipping_address", before: { city: "Paris" }, after: { city: "Lyon" } }],
  environment: "production",
  records_affected: 1,
  irreversible: false,
};

describe("a proposal from the service's preview", () => {
  it("takes the canonical arguments and binds the target version into them", () => {
    const draft = draftFromPreview(commitAddress, preview);
    expect(draft.arguments).toEqual({
      customer_id: "C-1842",
      destination: { address_id: "ADDR-2", kind: "saved" },
      expected_version: 17,
    });
    expect(draft.target).toEqual({ type: "customer", id: "C-1842", version: 17 });
    expect(draft.action).toBe("update");
    expect(draft.argumentsSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("gives another hash for another version of the same change", () => {
    const at18 = draftFromPreview(commitAddress, { ...preview, target: { ...preview.target, version: 18 } });
    expect(at18.argumentsSha256).not.toBe(draftFromPreview(commitAddress, preview).argumentsSha256);
  });

  it("carries the service's field labels onto the changes, own keys only", () => {
    const labelled = draftFromPreview(commitAddress, {
      ...preview,
      changes: [...preview.changes, { field: "constructor", before: null, after: 1 }],
      labels: { shipping_address: "Adresse de livraison" },
    });
    expect(labelled.changes.map((c) => [c.field, c.label])).toEqual([
      ["shipping_address", "Adresse de livraison"],
      ["constructor", null],
    ]);
    expect(labelled.argumentsSha256).toBe(draftFromPreview(commitAddress, preview).argumentsSha256);
    expect(() => draftFromPreview(commitAddress, { ...preview, labels: { shipping_address: 3 } })).toThrow(DraftError);
  });

  it("refuses a preview that breaks the protocol or names another record", () => {
    expect(() => draftFromPreview(commitAddress, { ...preview, irreversible: "no" })).toThrow(DraftError);
    expect(() =>
      draftFromPreview(commitAddress, { ...preview, target: { type: "customer", id: "C-2001", version: 3 } }),
    ).toThrow(/not the record/);
  });
});

describe("a proposal from the arguments of a tool without preview", () => {
  it("describes an e-mail: recipients, irreversible, external", () => {
    const draft = draftFromArguments(contract("send_email"), {
      to: ["camille@example.fr"],
      subject: "Livraison",
      body: "Bonjour",
    });
    expect(draft).toMatchObject({
      recipients: ["camille@example.fr"],
      irreversible: true,
      externalMessage: true,
      action: "message",
      recordsAffected: 1,
    });
    expect(draft.effect).toContain("camille@example.fr");
  });

  it("describes a refund with its amount in French", () => {
    const refund = contract("refund_payment", {
      target: { type: "payment", id_pointer: "/payment_id", version_pointer: null },
    });
    const draft = draftFromArguments(refund, {
      payment_id: "PAY-9001",
      amount: { value_minor: 2_500, currency: "EUR" },
    });
    expect(draft).toMatchObject({
      amount: { value_minor: 2_500, currency: "EUR" },
      action: "payment",
      irreversible: true,
      target: { type: "payment", id: "PAY-9001", version: null },
    });
    expect(draft.effect.replace(/[\u202f\u00a0]/g, " ")).toBe("Rembourser 25,00 € sur le paiement PAY-9001.");
  });

  it("counts the records of a bulk change, whatever the order of the ids", () => {
    const suspend = contract("suspend_invoice_delivery", {
      target: { type: "customer", id_pointer: "/customer_id", version_pointer: null },
    });
    const a = draftFromArguments(suspend, { customer_id: "C-1842", invoice_ids: ["INV-1842-003", "INV-1842-001"] });
    const b = draftFromArguments(suspend, { invoice_ids: ["INV-1842-001", "INV-1842-003"], customer_id: "C-1842" });
    expect(a.recordsAffected).toBe(2);
    expect(a.argumentsSha256).toBe(b.argumentsSha256);
    expect(a.changes.map((c) => c.field)).toEqual(["invoices/INV-1842-001/delivery", "invoices/INV-1842-003/delivery"]);
    expect(a.effect).toBe("Suspendre l'envoi de 2 factures du client C-1842.");
    // The civil date the suspension ends is shown as the day it is, never shifted by a time zone.
    const until = draftFromArguments(suspend, {
      customer_id: "C-1842",
      invoice_ids: ["INV-1842-001"],
      resume_on: "2096-02-29",
    });
    expect(until.effect).toBe("Suspendre l'envoi de 1 facture du client C-1842 jusqu'au 29/02/2096.");
    expect(until.changes[0].after).toBe("suspendu jusqu'au 29/02/2096");
  });

  it("describes the long jobs in French: a suspension of every invoice, and cancelling a job", () => {
    const all = draftFromArguments(contract("suspend_all_invoice_delivery"), { customer_id: "C-2001" });
    expect(all).toMatchObject({
      effect:
        "Suspendre l'envoi de toutes les factures du client C-2001 : le service accepte la demande puis la traite ; le nombre de factures n'est connu qu'à la fin.",
      target: { type: "customer", id: "C-2001", version: null },
      changes: [{ field: "invoices/*/delivery", label: "Envoi de toutes les factures", after: "suspendu" }],
      // As cautious as an unknown write: what the job touches is known only at its end.
      recordsAffected: 1,
      irreversible: true,
      action: null,
    });
    const cancel = draftFromArguments(contract("cancel_job"), { job_id: "job_890a763fe15f6cbe" });
    expect(cancel).toMatchObject({
      effect:
        "Annuler le traitement job_890a763fe15f6cbe en cours chez le service ; s'il est déjà terminé, rien n'est défait.",
      target: { type: "job", id: "job_890a763fe15f6cbe", version: null },
      irreversible: true,
    });
    // Another shape is not trusted to these describers.
    expect(draftFromArguments(contract("cancel_job"), { job_id: 7 }).effect).toMatch(/^Écriture par l'outil/);
  });

  it("never lets an idempotency key chosen by the caller into the proposal", () => {
    const draft = draftFromArguments(contract("send_email"), {
      to: ["a@b.fr"],
      subject: "s",
      body: "b",
      idempotency_key: "agent-chosen-key",
    });
    expect(draft.arguments).not.toHaveProperty("idempotency_key");
  });

  it("describes an unknown write cautiously: every value shown, irreversible", () => {
    const draft = draftFromArguments(contract("close_account"), { account: "A-1", note: "x" });
    expect(draft).toMatchObject({
      irreversible: true,
      action: null,
      changes: [
        { field: "account", after: "A-1" },
        { field: "note", after: "x" },
      ],
    });
    // A known name with an unexpected shape is not trusted to the known describer.
    expect(draftFromArguments(contract("send_email"), { to: "not-a-list" }).irreversible).toBe(true);
    expect(draftFromArguments(contract("send_email"), { to: "not-a-list" }).externalMessage).toBe(false);
  });

  it("hands the policy its facts", () => {
    const draft = draftFromArguments(contract("send_email"), { to: ["a@b.fr"], subject: "s", body: "b" });
    expect(policyFacts(contract("send_email"), draft)).toEqual({
      tool: "mcp_7_send_email",
      effect: "write",
      environment: "production",
      action: "message",
      amount: null,
      records_affected: 1,
      irreversible: true,
      external_message: true,
    });
  });
});
