import type { Database } from "./sqlite";

// Demo data of the CRM Acme service. Inserted with INSERT OR IGNORE, so running
// it again on an existing database changes nothing (versions, refunds and
// suspensions made since are kept).

interface SeedAddress {
  id: string;
  customer: string;
  label: string;
  line1: string;
  city: string;
  postal: string | null;
  country: string;
}

const CUSTOMERS = [
  { id: "C-1842", name: "Camille Martin", email: "camille.martin@example.com", version: 17, home: "ADDR-1" },
  { id: "C-2001", name: "Hugo Bernard", email: "hugo.bernard@example.com", version: 3, home: "ADDR-4" },
  { id: "C-2002", name: "Léa Dubois", email: "lea.dubois@example.com", version: 1, home: "ADDR-6" },
  { id: "C-3003", name: "Nadia Haddad", email: "nadia.haddad@example.org", version: 8, home: "ADDR-7" },
];

const ADDRESSES: SeedAddress[] = [
  {
    id: "ADDR-1",
    customer: "C-1842",
    label: "Domicile",
    line1: "8 rue des Lilas",
    city: "Paris",
    postal: "75011",
    country: "FR",
  },
  {
    id: "ADDR-2",
    customer: "C-1842",
    label: "Bureau",
    line1: "24 quai Saint-Antoine",
    city: "Lyon",
    postal: "69002",
    country: "FR",
  },
  {
    id: "ADDR-3",
    customer: "C-1842",
    label: "Parents",
    line1: "12 rue Sainte-Catherine",
    city: "Bordeaux",
    postal: "33000",
    country: "FR",
  },
  {
    id: "ADDR-4",
    customer: "C-2001",
    label: "Domicile",
    line1: "3 place du Capitole",
    city: "Toulouse",
    postal: "31000",
    country: "FR",
  },
  {
    id: "ADDR-5",
    customer: "C-2001",
    label: "Atelier",
    line1: "Rue du Marché 40",
    city: "Genève",
    postal: "1204",
    country: "CH",
  },
  {
    id: "ADDR-6",
    customer: "C-2002",
    label: "Domicile",
    line1: "5 allée des Tilleuls",
    city: "Nantes",
    postal: "44000",
    country: "FR",
  },
  {
    id: "ADDR-7",
    customer: "C-3003",
    label: "Domicile",
    line1: "Avenue Louise 120",
    city: "Bruxelles",
    postal: "1050",
    country: "BE",
  },
];

const ORDER_STATUSES = ["delivered", "delivered", "shipped", "paid", "cancelled", "refunded", "pending"];

function isoDay(base: string, plusDays: number, hour = 10): string {
  const d = new Date(`${base}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + plusDays);
  d.setUTCHours(hour);
  return d.toISOString();
}

export function seed(db: Database): void {
  const insCustomer = db.prepare(
    `INSERT OR IGNORE INTO customers (customer_id, name, email, version, shipping_address, updated_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const insAddress = db.prepare(
    `INSERT OR IGNORE INTO saved_addresses (address_id, customer_id, label, line1, city, postal_code, country)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const insOrder = db.prepare(
    `INSERT OR IGNORE INTO orders (order_id, customer_id, status, total_minor, currency, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const insInvoice = db.prepare(
    `INSERT OR IGNORE INTO invoices (invoice_id, customer_id, amount_minor, currency, issued_at) VALUES (?, ?, ?, ?, ?)`,
  );
  const insPayment = db.prepare(
    `INSERT OR IGNORE INTO payments (payment_id, customer_id, amount_minor, currency, refunded_minor, created_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const insRefund = db.prepare(
    `INSERT OR IGNORE INTO refunds (refund_id, payment_id, amount_minor, currency, reason, operation_id, created_at)
     VALUES (?, ?, ?, ?, ?, NULL, ?)`,
  );

  db.transaction(() => {
    for (const c of CUSTOMERS) {
      const home = ADDRESSES.find((a) => a.id === c.home)!;
      const shipping = { line1: home.line1, city: home.city, postal_code: home.postal, country: home.country };
      insCustomer.run(c.id, c.name, c.email, c.version, JSON.stringify(shipping), "2025-03-01T09:00:00.000Z");
    }
    for (const a of ADDRESSES) insAddress.run(a.id, a.customer, a.label, a.line1, a.city, a.postal, a.country);

    // 25 orders for C-1842 (three pages of 10), a few for the others.
    const orderCounts: Record<string, number> = { "C-1842": 25, "C-2001": 4, "C-2002": 2, "C-3003": 0 };
    for (const [customer, count] of Object.entries(orderCounts)) {
      const num = customer.slice(2);
      for (let i = 1; i <= count; i++) {
        const status = ORDER_STATUSES[(i + num.length) % ORDER_STATUSES.length];
        const total = 1500 + ((i * 3719 + Number(num)) % 20000);
        insOrder.run(
          `ORD-${num}-${String(i).padStart(3, "0")}`,
          customer,
          status,
          total,
          "EUR",
          isoDay("2025-01-05", i * 3),
        );
      }
    }

    // Invoices: 12 for C-1842 (bulk suspension), 3 each for the others.
    const invoiceCounts: Record<string, number> = { "C-1842": 12, "C-2001": 3, "C-2002": 3, "C-3003": 3 };
    for (const [customer, count] of Object.entries(invoiceCounts)) {
      const num = customer.slice(2);
      for (let i = 1; i <= count; i++) {
        insInvoice.run(
          `INV-${num}-${String(i).padStart(3, "0")}`,
          customer,
          2000 + i * 250,
          "EUR",
          isoDay("2025-01-01", i * 30),
        );
      }
    }

    insPayment.run("PAY-9001", "C-1842", 12500, "EUR", 2500, "2025-04-02T14:30:00.000Z");
    insRefund.run("RF-SEED-1", "PAY-9001", 2500, "EUR", "Article manquant", "2025-04-10T08:00:00.000Z");
    insPayment.run("PAY-9002", "C-1842", 4990, "EUR", 0, "2025-05-11T16:05:00.000Z");
    insPayment.run("PAY-9003", "C-2001", 8000, "EUR", 0, "2025-05-20T11:00:00.000Z");
    insPayment.run("PAY-9004", "C-2001", 15000, "CHF", 0, "2025-06-02T10:00:00.000Z");
  })();
}
