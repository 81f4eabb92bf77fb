import { notFound, ToolError } from "./errors";
import { runIdempotent, type IdempotentOutcome } from "./idempotency";
import type { Address, Customer, Store } from "./store";

export type Destination =
  | { kind: "saved"; address_id: string }
  | { kind: "new"; line1: string; city: string; postal_code?: string; country: string };

const tidy = (s: string) => s.trim().replace(/\s+/g, " ");

/** Canonical form of a destination: a saved address is its id, a new one is trimmed. */
export function canonicalDestination(d: Destination): Destination {
  if (d.kind === "saved") return { kind: "saved", address_id: d.address_id };
  const out: Destination = { kind: "new", line1: tidy(d.line1), city: tidy(d.city), country: d.country };
  if (d.postal_code !== undefined) out.postal_code = tidy(d.postal_code);
  return out;
}

function requireCustomer(store: Store, customerId: string): Customer {
  const c = store.getCustomer(customerId);
  if (!c) throw notFound("Client", customerId, "/customer_id");
  return c;
}

/** The address a (canonical) destination designates for this customer. */
function resolveDestination(customer: Customer, d: Destination): Address {
  if (d.kind === "new") {
    return { line1: d.line1, city: d.city, postal_code: d.postal_code ?? null, country: d.country };
  }
  const saved = customer.saved_addresses.find((a) => a.address_id === d.address_id);
  if (!saved) {
    throw new ToolError(
      "NOT_FOUND",
      `Le client ${customer.customer_id} n’a pas d’adresse enregistrée ${d.address_id}`,
      {
        field: "/destination/address_id",
      },
    );
  }
  return { line1: saved.line1, city: saved.city, postal_code: saved.postal_code, country: saved.country };
}

/** How the service names its fields to people: approval screens show these instead of the raw keys. */
export const FIELD_LABELS = { shipping_address: "Adresse de livraison" } as const;

const oneLine = (a: Address) => [a.line1, [a.postal_code, a.city].filter(Boolean).join(" "), a.country].join(", ");

export interface PreviewAddressArgs {
  customer_id: string;
  destination: Destination;
}

export function previewAddressChange(store: Store, args: PreviewAddressArgs) {
  const customer = requireCustomer(store, args.customer_id);
  const destination = canonicalDestination(args.destination);
  const after = resolveDestination(customer, destination);
  const before = customer.shipping_address;
  const source = destination.kind === "saved" ? ` (adresse enregistrée ${destination.address_id})` : "";
  return {
    target: { type: "customer" as const, id: customer.customer_id, version: customer.version },
    arguments: { customer_id: customer.customer_id, destination },
    effect: `Remplacer l’adresse de livraison du client ${customer.customer_id} (${customer.name}), actuellement « ${oneLine(before)} », par « ${oneLine(after)} »${source}.`,
    changes: [{ field: "shipping_address", before, after }],
    labels: FIELD_LABELS,
    environment: "production" as const,
    records_affected: 1,
    irreversible: false,
  };
}

export interface CommitAddressArgs {
  customer_id: string;
  destination: Destination;
  expected_version: number;
  idempotency_key: string;
}

export interface CommitAddressResult {
  operation_id: string;
  customer_id: string;
  previous_version: number;
  new_version: number;
  changed_fields: string[];
  committed_at: string;
}

export function commitAddressChange(store: Store, args: CommitAddressArgs): IdempotentOutcome<CommitAddressResult> {
  const destination = canonicalDestination(args.destination);
  const canonical = { customer_id: args.customer_id, destination, expected_version: args.expected_version };
  return runIdempotent(store, "commit_address_change", args.idempotency_key, canonical, (operationId, now) => {
    const customer = requireCustomer(store, args.customer_id);
    if (customer.version !== args.expected_version) {
      throw new ToolError(
        "VERSION_CONFLICT",
        `Le client ${customer.customer_id} est à la version ${customer.version}, pas ${args.expected_version} : relisez la fiche et faites une nouvelle proposition`,
        { field: "/expected_version", details: { current_version: customer.version } },
      );
    }
    const after = resolveDestination(customer, destination);
    const updated = store.db
      .prepare(
        `UPDATE customers SET shipping_address = ?, version = version + 1, updated_at = ?
         WHERE customer_id = ? AND version = ?`,
      )
      .run(JSON.stringify(after), now, customer.customer_id, args.expected_version);
    if (updated.changes !== 1) throw new ToolError("INTERNAL_ERROR", "Modification concurrente", { retryable: true });
    return {
      operation_id: operationId,
      customer_id: customer.customer_id,
      previous_version: customer.version,
      new_version: customer.version + 1,
      changed_fields: ["shipping_address"],
      committed_at: now,
    };
  });
}
