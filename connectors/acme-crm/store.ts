import fs from "node:fs";
import path from "node:path";
import { allJobs, JOBS_SCHEMA } from "./jobs";
import { seed } from "./seed";
import { openDatabase, type Database } from "./sqlite";

// The CRM Acme service's own database (SQLite, WAL). Nothing here knows about
// Guichet: this stands for a customer's system of record.

export interface Address {
  line1: string;
  city: string;
  postal_code: string | null;
  country: string;
}
export interface SavedAddress extends Address {
  address_id: string;
  label: string;
}
export interface Money {
  value_minor: number;
  currency: string;
}
export interface Customer {
  customer_id: string;
  name: string;
  email: string;
  version: number;
  shipping_address: Address;
  saved_addresses: SavedAddress[];
  updated_at: string;
}
export interface Order {
  order_id: string;
  status: string;
  total: Money;
  created_at: string;
}
export interface Payment {
  payment_id: string;
  customer_id: string;
  amount: Money;
  refunded_total: Money;
  created_at: string;
}
export interface Invoice {
  invoice_id: string;
  customer_id: string;
  amount: Money;
  issued_at: string;
  delivery_suspended: boolean;
  suspended_at: string | null;
  suspended_by_operation: string | null;
  /** The civil date delivery resumes on by itself; null: until resumed by hand. */
  resumes_on: string | null;
}
export interface OperationRow {
  idempotency_key: string;
  operation_id: string;
  tool: string;
  arguments_sha256: string;
  status: "succeeded" | "failed";
  result: unknown;
  error: unknown;
  created_at: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS customers (
  customer_id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL,
  version INTEGER NOT NULL CHECK (version >= 1), shipping_address TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS saved_addresses (
  address_id TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(customer_id),
  label TEXT NOT NULL, line1 TEXT NOT NULL, city TEXT NOT NULL, postal_code TEXT, country TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS orders (
  order_id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, status TEXT NOT NULL,
  total_minor INTEGER NOT NULL, currency TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS orders_by_customer ON orders (customer_id, created_at DESC, order_id DESC);
CREATE TABLE IF NOT EXISTS invoices (
  invoice_id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, amount_minor INTEGER NOT NULL, currency TEXT NOT NULL,
  issued_at TEXT NOT NULL, delivery_suspended INTEGER NOT NULL DEFAULT 0, suspended_at TEXT, suspended_by TEXT,
  resumes_on TEXT);
CREATE TABLE IF NOT EXISTS payments (
  payment_id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, amount_minor INTEGER NOT NULL, currency TEXT NOT NULL,
  refunded_minor INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL,
  CHECK (refunded_minor >= 0 AND refunded_minor <= amount_minor));
CREATE TABLE IF NOT EXISTS refunds (
  refund_id TEXT PRIMARY KEY, payment_id TEXT NOT NULL, amount_minor INTEGER NOT NULL, currency TEXT NOT NULL,
  reason TEXT, operation_id TEXT, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (
  message_id TEXT PRIMARY KEY, operation_id TEXT NOT NULL, customer_id TEXT, recipients TEXT NOT NULL,
  subject TEXT NOT NULL, body TEXT NOT NULL, queued_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS operations (
  idempotency_key TEXT PRIMARY KEY, operation_id TEXT NOT NULL UNIQUE, tool TEXT NOT NULL,
  arguments_sha256 TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('succeeded', 'failed')),
  result TEXT, error TEXT, created_at TEXT NOT NULL);
`;

const DATA_TABLES = [
  "jobs",
  "operations",
  "outbox",
  "refunds",
  "payments",
  "invoices",
  "orders",
  "saved_addresses",
  "customers",
];

// Raw rows as SQLite returns them.
interface CustomerRow {
  customer_id: string;
  name: string;
  email: string;
  version: number;
  shipping_address: string;
  updated_at: string;
}
interface AddressRow {
  address_id: string;
  customer_id: string;
  label: string;
  line1: string;
  city: string;
  postal_code: string | null;
  country: string;
}
interface OrderRow {
  order_id: string;
  customer_id: string;
  status: string;
  total_minor: number;
  currency: string;
  created_at: string;
}
interface InvoiceRow {
  invoice_id: string;
  customer_id: string;
  amount_minor: number;
  currency: string;
  issued_at: string;
  delivery_suspended: number;
  suspended_at: string | null;
  suspended_by: string | null;
  resumes_on: string | null;
}
interface PaymentRow {
  payment_id: string;
  customer_id: string;
  amount_minor: number;
  currency: string;
  refunded_minor: number;
  created_at: string;
}
interface RefundRow {
  refund_id: string;
  payment_id: string;
  amount_minor: number;
  currency: string;
  reason: string | null;
  operation_id: string | null;
  created_at: string;
}
interface OutboxRow {
  message_id: string;
  operation_id: string;
  customer_id: string | null;
  recipients: string;
  subject: string;
  body: string;
  queued_at: string;
}
interface OpRow {
  idempotency_key: string;
  operation_id: string;
  tool: string;
  arguments_sha256: string;
  status: "succeeded" | "failed";
  result: string | null;
  error: string | null;
  created_at: string;
}

export class Store {
  readonly db: Database;
  /** The `hold_jobs` fault: long jobs stay running until it is switched off. */
  holdJobs = false;

  constructor(dbPath: string) {
    if (dbPath !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(dbPath)), { recursive: true });
    this.db = openDatabase(dbPath);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("busy_timeout = 5000");
    this.db.pragma("foreign_keys = ON");
    this.db.exec(SCHEMA);
    this.db.exec(JOBS_SCHEMA);
    // A store file written before invoices had a resume date gets the column.
    const columns = this.db.prepare(`PRAGMA table_info(invoices)`).all() as { name: string }[];
    if (!columns.some((c) => c.name === "resumes_on")) this.db.exec(`ALTER TABLE invoices ADD COLUMN resumes_on TEXT`);
    seed(this.db);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** Wipes every table and seeds again (test control only). */
  resetData(): void {
    this.db.transaction(() => {
      for (const t of DATA_TABLES) this.db.prepare(`DELETE FROM ${t}`).run();
    })();
    seed(this.db);
  }

  getCustomer(id: string): Customer | null {
    const row = this.db.prepare(`SELECT * FROM customers WHERE customer_id = ?`).get(id) as CustomerRow | undefined;
    if (!row) return null;
    return {
      customer_id: row.customer_id,
      name: row.name,
      email: row.email,
      version: row.version,
      shipping_address: JSON.parse(row.shipping_address) as Address,
      saved_addresses: this.savedAddresses(id),
      updated_at: row.updated_at,
    };
  }

  savedAddresses(customerId: string): SavedAddress[] {
    const rows = this.db
      .prepare(`SELECT * FROM saved_addresses WHERE customer_id = ? ORDER BY CAST(substr(address_id, 6) AS INTEGER)`)
      .all(customerId) as AddressRow[];
    return rows.map((r) => ({
      address_id: r.address_id,
      label: r.label,
      line1: r.line1,
      city: r.city,
      postal_code: r.postal_code,
      country: r.country,
    }));
  }

  /** Orders newest first; keyset pagination on (created_at, order_id). */
  listOrders(customerId: string, limit: number, after: { created_at: string; order_id: string } | null): Order[] {
    const rows = (
      after
        ? this.db
            .prepare(
              `SELECT * FROM orders WHERE customer_id = ? AND (created_at < ? OR (created_at = ? AND order_id < ?))
               ORDER BY created_at DESC, order_id DESC LIMIT ?`,
            )
            .all(customerId, after.created_at, after.created_at, after.order_id, limit)
        : this.db
            .prepare(`SELECT * FROM orders WHERE customer_id = ? ORDER BY created_at DESC, order_id DESC LIMIT ?`)
            .all(customerId, limit)
    ) as OrderRow[];
    return rows.map((r) => ({
      order_id: r.order_id,
      status: r.status,
      total: { value_minor: r.total_minor, currency: r.currency },
      created_at: r.created_at,
    }));
  }

  getPayment(id: string): Payment | null {
    const r = this.db.prepare(`SELECT * FROM payments WHERE payment_id = ?`).get(id) as PaymentRow | undefined;
    if (!r) return null;
    return {
      payment_id: r.payment_id,
      customer_id: r.customer_id,
      amount: { value_minor: r.amount_minor, currency: r.currency },
      refunded_total: { value_minor: r.refunded_minor, currency: r.currency },
      created_at: r.created_at,
    };
  }

  getInvoice(id: string): Invoice | null {
    const r = this.db.prepare(`SELECT * FROM invoices WHERE invoice_id = ?`).get(id) as InvoiceRow | undefined;
    return r ? toInvoice(r) : null;
  }

  getOperation(key: string): OperationRow | null {
    const r = this.db.prepare(`SELECT * FROM operations WHERE idempotency_key = ?`).get(key) as OpRow | undefined;
    return r ? toOperation(r) : null;
  }

  /** Someone else edits the customer: the version moves on (test control). */
  touchCustomer(id: string): number | null {
    const r = this.db
      .prepare(`UPDATE customers SET version = version + 1, updated_at = ? WHERE customer_id = ? RETURNING version`)
      .get(new Date().toISOString(), id) as { version: number } | undefined;
    return r ? r.version : null;
  }

  /** The whole store as JSON, for tests asserting on the service's recorded state. */
  dumpState() {
    const all = <R>(sql: string) => this.db.prepare(sql).all() as R[];
    return {
      customers: all<{ customer_id: string }>(`SELECT customer_id FROM customers ORDER BY customer_id`).map((r) =>
        this.getCustomer(r.customer_id)!,
      ),
      orders: all<OrderRow>(`SELECT * FROM orders ORDER BY customer_id, created_at DESC, order_id DESC`).map((r) => ({
        order_id: r.order_id,
        customer_id: r.customer_id,
        status: r.status,
        total: { value_minor: r.total_minor, currency: r.currency },
        created_at: r.created_at,
      })),
      invoices: all<InvoiceRow>(`SELECT * FROM invoices ORDER BY invoice_id`).map(toInvoice),
      payments: all<{ payment_id: string }>(`SELECT payment_id FROM payments ORDER BY payment_id`).map((r) =>
        this.getPayment(r.payment_id)!,
      ),
      refunds: all<RefundRow>(`SELECT * FROM refunds ORDER BY created_at, refund_id`).map((r) => ({
        refund_id: r.refund_id,
        payment_id: r.payment_id,
        amount: { value_minor: r.amount_minor, currency: r.currency },
        reason: r.reason,
        operation_id: r.operation_id,
        created_at: r.created_at,
      })),
      outbox: all<OutboxRow>(`SELECT * FROM outbox ORDER BY queued_at, message_id`).map((r) => ({
        message_id: r.message_id,
        operation_id: r.operation_id,
        customer_id: r.customer_id,
        recipients: JSON.parse(r.recipients) as string[],
        subject: r.subject,
        body: r.body,
        queued_at: r.queued_at,
      })),
      operations: all<OpRow>(`SELECT * FROM operations ORDER BY created_at, idempotency_key`).map(toOperation),
      jobs: allJobs(this),
    };
  }
}

function toInvoice(r: InvoiceRow): Invoice {
  return {
    invoice_id: r.invoice_id,
    customer_id: r.customer_id,
    amount: { value_minor: r.amount_minor, currency: r.currency },
    issued_at: r.issued_at,
    delivery_suspended: r.delivery_suspended === 1,
    suspended_at: r.suspended_at,
    suspended_by_operation: r.suspended_by,
    resumes_on: r.resumes_on,
  };
}

function toOperation(r: OpRow): OperationRow {
  return {
    idempotency_key: r.idempotency_key,
    operation_id: r.operation_id,
    tool: r.tool,
    arguments_sha256: r.arguments_sha256,
    status: r.status,
    result: r.result === null ? null : JSON.parse(r.result),
    error: r.error === null ? null : JSON.parse(r.error),
    created_at: r.created_at,
  };
}
