import { randomBytes } from "node:crypto";
import BetterSqlite3 from "better-sqlite3";
import { argumentsSha256 } from "../acme-crm/canonical";
import { DEMO_ACCOUNTS } from "./accounts";
import { ShopError, type ShopErrorBody } from "./errors";

// Boutique's own data: orders per account and the writes' idempotency records,
// in SQLite (in memory unless a file is given). Every query names the account:
// an order or an idempotency key of another account does not exist for you.

export type OrderStatus = "paid" | "shipped" | "delivered" | "cancelled";

export interface Money {
  value_minor: number;
  currency: string;
}

export interface OrderItem {
  label: string;
  quantity: number;
  unit_price: Money;
}

export interface Order {
  order_id: string;
  status: OrderStatus;
  placed_at: string;
  total: Money;
  items: OrderItem[];
  shipping_city: string;
  version: number;
  updated_at: string;
}

export interface Operation {
  idempotency_key: string;
  operation_id: string;
  tool: string;
  arguments_sha256: string;
  status: "succeeded" | "failed";
  result: unknown;
  error: ShopErrorBody | null;
  created_at: string;
}

const eur = (value_minor: number): Money => ({ value_minor, currency: "EUR" });

interface SeedOrder {
  order_id: string;
  account: string;
  status: OrderStatus;
  placed_at: string;
  items: OrderItem[];
  shipping_city: string;
}

const SEED: SeedOrder[] = [
  {
    order_id: "CMD-1001",
    account: "acct_dana",
    status: "paid",
    placed_at: "2026-11-28T09:14:00.000Z",
    items: [{ label: "Théière en fonte", quantity: 1, unit_price: eur(4250) }],
    shipping_city: "Nantes",
  },
  {
    order_id: "CMD-1002",
    account: "acct_dana",
    status: "shipped",
    placed_at: "2026-11-20T16:02:00.000Z",
    items: [
      { label: "Lampe de bureau", quantity: 1, unit_price: eur(8900) },
      { label: "Ampoule LED", quantity: 2, unit_price: eur(2000) },
    ],
    shipping_city: "Nantes",
  },
  {
    order_id: "CMD-1003",
    account: "acct_dana",
    status: "delivered",
    placed_at: "2026-10-03T11:40:00.000Z",
    items: [{ label: "Carnets (lot de 3)", quantity: 1, unit_price: eur(1890) }],
    shipping_city: "Nantes",
  },
  {
    order_id: "CMD-2001",
    account: "acct_leo",
    status: "paid",
    placed_at: "2026-12-01T08:30:00.000Z",
    items: [{ label: "Plaid en laine", quantity: 1, unit_price: eur(6400) }],
    shipping_city: "Lille",
  },
  {
    order_id: "CMD-2002",
    account: "acct_leo",
    status: "delivered",
    placed_at: "2026-09-15T19:05:00.000Z",
    items: [{ label: "Tasse en grès", quantity: 2, unit_price: eur(1750) }],
    shipping_city: "Lille",
  },
];

const SCHEMA = `
CREATE TABLE IF NOT EXISTS orders (
  order_id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  status TEXT NOT NULL,
  placed_at TEXT NOT NULL,
  total_minor INTEGER NOT NULL,
  currency TEXT NOT NULL,
  items TEXT NOT NULL,
  shipping_city TEXT NOT NULL,
  version INTEGER NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS orders_account ON orders (account_id, placed_at);
CREATE TABLE IF NOT EXISTS operations (
  account_id TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  operation_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  arguments_sha256 TEXT NOT NULL,
  status TEXT NOT NULL,
  result TEXT,
  error TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (account_id, idempotency_key)
);
`;

interface OrderRow {
  order_id: string;
  account_id: string;
  status: OrderStatus;
  placed_at: string;
  total_minor: number;
  currency: string;
  items: string;
  shipping_city: string;
  version: number;
  updated_at: string;
}

function toOrder(row: OrderRow): Order {
  return {
    order_id: row.order_id,
    status: row.status,
    placed_at: row.placed_at,
    total: { value_minor: row.total_minor, currency: row.currency },
    items: JSON.parse(row.items) as OrderItem[],
    shipping_city: row.shipping_city,
    version: row.version,
    updated_at: row.updated_at,
  };
}

export const newId = (prefix: string) => `${prefix}${randomBytes(8).toString("hex")}`;

export interface IdempotentOutcome<T> {
  result: T;
  /** The stored result of an earlier call with the same key. */
  replayed: boolean;
}

export class ShopStore {
  readonly db: BetterSqlite3.Database;

  constructor(filename = ":memory:") {
    this.db = new BetterSqlite3(filename);
    if (filename !== ":memory:") this.db.pragma("journal_mode = WAL");
    this.db.exec(SCHEMA);
    this.seed();
  }

  /** Seeds the demo orders; an existing file keeps its changes. */
  seed(): void {
    const insert = this.db.prepare(
      `INSERT OR IGNORE INTO orders (order_id, account_id, status, placed_at, total_minor, currency, items, shipping_city, version, updated_at)
       VALUES (?, ?, ?, ?, ?, 'EUR', ?, ?, 1, ?)`,
    );
    this.db.transaction(() => {
      for (const o of SEED) {
        if (!DEMO_ACCOUNTS.some((a) => a.id === o.account))
          throw new Error(`seed order of unknown account ${o.account}`);
        const total = o.items.reduce((sum, item) => sum + item.quantity * item.unit_price.value_minor, 0);
        insert.run(
          o.order_id,
          o.account,
          o.status,
          o.placed_at,
          total,
          JSON.stringify(o.items),
          o.shipping_city,
          o.placed_at,
        );
      }
    })();
  }

  /** The account's orders, newest first. */
  listOrders(accountId: string, status?: OrderStatus): Order[] {
    const rows = status
      ? this.db
          .prepare(`SELECT * FROM orders WHERE account_id = ? AND status = ? ORDER BY placed_at DESC, order_id DESC`)
          .all(accountId, status)
      : this.db
          .prepare(`SELECT * FROM orders WHERE account_id = ? ORDER BY placed_at DESC, order_id DESC`)
          .all(accountId);
    return (rows as OrderRow[]).map(toOrder);
  }

  /** One order of this account; another account's order is not found. */
  getOrder(accountId: string, orderId: string): Order | null {
    const row = this.db
      .prepare(`SELECT * FROM orders WHERE account_id = ? AND order_id = ?`)
      .get(accountId, orderId) as OrderRow | undefined;
    return row ? toOrder(row) : null;
  }

  getOperation(accountId: string, key: string): Operation | null {
    const row = this.db
      .prepare(`SELECT * FROM operations WHERE account_id = ? AND idempotency_key = ?`)
      .get(accountId, key) as
      (Omit<Operation, "result" | "error"> & { result: string | null; error: string | null }) | undefined;
    if (!row) return null;
    return {
      idempotency_key: row.idempotency_key,
      operation_id: row.operation_id,
      tool: row.tool,
      arguments_sha256: row.arguments_sha256,
      status: row.status,
      result: row.result === null ? null : JSON.parse(row.result),
      error: row.error === null ? null : (JSON.parse(row.error) as ShopErrorBody),
      created_at: row.created_at,
    };
  }

  /** Every order, for the control API. */
  allOrders(): Array<Order & { account_id: string }> {
    const rows = this.db.prepare(`SELECT * FROM orders ORDER BY order_id`).all() as OrderRow[];
    return rows.map((row) => ({ ...toOrder(row), account_id: row.account_id }));
  }

  /**
   * One write under the idempotency protocol of CRM Acme, per account, in one
   * immediate transaction: the same key with the same tool and canonical
   * arguments returns the stored outcome without writing again; with other
   * arguments it is IDEMPOTENCY_KEY_REUSED. A business refusal rolls the write
   * back and is recorded as the key's final outcome.
   */
  runIdempotent<T>(
    accountId: string,
    tool: string,
    key: string,
    canonicalArgs: Record<string, unknown>,
    write: (operationId: string, now: string) => T,
  ): IdempotentOutcome<T> {
    const hash = argumentsSha256(canonicalArgs);
    const tx = this.db.transaction((): { ok: true; value: IdempotentOutcome<T> } | { ok: false; error: ShopError } => {
      const existing = this.getOperation(accountId, key);
      if (existing) {
        if (existing.tool !== tool || existing.arguments_sha256 !== hash) {
          return {
            ok: false,
            error: new ShopError(
              "IDEMPOTENCY_KEY_REUSED",
              `Clé d’idempotence déjà utilisée par ${existing.tool} avec d’autres arguments`,
              { field: "/idempotency_key" },
            ),
          };
        }
        if (existing.status === "succeeded")
          return { ok: true, value: { result: existing.result as T, replayed: true } };
        return { ok: false, error: ShopError.fromBody(existing.error!) };
      }
      const operationId = newId("op_");
      const now = new Date().toISOString();
      const insert = this.db.prepare(
        `INSERT INTO operations (account_id, idempotency_key, operation_id, tool, arguments_sha256, status, result, error, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      try {
        const result = this.db.transaction(() => write(operationId, now))(); // savepoint
        insert.run(accountId, key, operationId, tool, hash, "succeeded", JSON.stringify(result), null, now);
        return { ok: true, value: { result, replayed: false } };
      } catch (e) {
        if (!(e instanceof ShopError) || e.code === "INTERNAL_ERROR" || e.code === "INVALID_ARGUMENTS") throw e;
        insert.run(accountId, key, operationId, tool, hash, "failed", null, JSON.stringify(e.toBody()), now);
        return { ok: false, error: e };
      }
    });
    const outcome = tx.immediate();
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  close(): void {
    this.db.close();
  }
}
