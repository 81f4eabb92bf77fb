import "server-only";
import { z } from "zod";
import { db, type DbOrTx } from "@/lib/db";

// The organization's structured data ("Données"): named data bases of tables
// and rows kept in Guichet's own database. Read-only here; every query is
// scoped by organization, and rows are read in pages.

export const ColumnType = z.enum(["text", "integer", "number", "boolean", "date"]);
export type ColumnType = z.infer<typeof ColumnType>;
export const Column = z.object({ name: z.string(), type: ColumnType });
export type Column = z.infer<typeof Column>;
export type CellValue = string | number | boolean | null;
export type FilterOp = "eq" | "ne" | "lt" | "lte" | "gt" | "gte" | "contains";
export interface Filter {
  column: string;
  op: FilterOp;
  value: CellValue;
}

/** A business refusal of a well-formed query (unknown base, table or column), pointing at the argument. */
export class DataQueryError extends Error {
  constructor(message: string, readonly field: string) {
    super(message);
    this.name = "DataQueryError";
  }
}

export async function listDataBases(organizationId: string, page: { limit: number; after: string | null }, tx: DbOrTx = db) {
  const bases = await tx.dataBase.findMany({
    where: { organizationId, ...(page.after ? { name: { gt: page.after } } : {}) },
    orderBy: { name: "asc" },
    take: page.limit + 1,
    select: { name: true, description: true, tables: { orderBy: { name: "asc" }, select: { id: true, name: true, columns: true } } },
  });
  const kept = bases.slice(0, page.limit);
  const tableIds = kept.flatMap((b) => b.tables.map((t) => t.id));
  const counts = await tx.dataRow.groupBy({ by: ["tableId"], where: { organizationId, tableId: { in: tableIds } }, _count: { _all: true } });
  const countOf = new Map(counts.map((c) => [c.tableId, c._count._all]));
  return {
    bases: kept.map((b) => ({
      name: b.name,
      description: b.description,
      tables: b.tables.map((t) => ({ name: t.name, row_count: countOf.get(t.id) ?? 0, column_count: columnsOf(t.columns).length })),
    })),
    more: bases.length > page.limit,
  };
}

export async function findTable(organizationId: string, baseName: string, tableName: string, tx: DbOrTx = db) {
  const base = await tx.dataBase.findUnique({ where: { organizationId_name: { organizationId, name: baseName } }, select: { id: true, name: true } });
  if (!base) throw new DataQueryError(`No data base named "${baseName}".`, "/data_base");
  const table = await tx.dataTable.findUnique({ where: { dataBaseId_name: { dataBaseId: base.id, name: tableName } }, select: { id: true, name: true, columns: true, organizationId: true } });
  if (!table || table.organizationId !== organizationId) throw new DataQueryError(`No table named "${tableName}" in "${baseName}".`, "/table");
  return { id: table.id, base: base.name, name: table.name, columns: columnsOf(table.columns) };
}

export function columnsOf(raw: unknown): Column[] {
  return z.array(Column).catch([]).parse(raw);
}

export async function countRows(organizationId: string, tableId: string, tx: DbOrTx = db): Promise<number> {
  return tx.dataRow.count({ where: { organizationId, tableId } });
}

const SCAN_CHUNK = 500;
const SCAN_LIMIT = 20_000;

/**
 * Rows matching every filter, in table order, after position `after`. Scans at
 * most SCAN_LIMIT rows per call; the cursor then resumes where the scan stopped,
 * so a sparse filter still answers in bounded time.
 */
export async function queryRows(
  organizationId: string,
  table: { id: string; columns: Column[] },
  query: { filters: Filter[]; limit: number; after: number; signal?: AbortSignal },
  tx: DbOrTx = db,
): Promise<{ rows: Record<string, CellValue>[]; resumeAfter: number | null }> {
  const byName = new Map(table.columns.map((c) => [c.name, c]));
  query.filters.forEach((f, i) => checkFilter(f, byName.get(f.column), i));
  const rows: Record<string, CellValue>[] = [];
  let position = query.after;
  let scanned = 0;
  for (;;) {
    if (query.signal?.aborted) throw query.signal.reason;
    const chunk = await tx.dataRow.findMany({
      where: { organizationId, tableId: table.id, position: { gt: position } },
      orderBy: { position: "asc" },
      take: SCAN_CHUNK,
      select: { position: true, values: true },
    });
    for (const row of chunk) {
      const values = (row.values ?? {}) as Record<string, CellValue>;
      if (query.filters.every((f) => matches(values[f.column] ?? null, f))) {
        if (rows.length === query.limit) return { rows, resumeAfter: position };
        rows.push(values);
      }
      position = row.position;
      scanned++;
    }
    if (chunk.length < SCAN_CHUNK) return { rows, resumeAfter: null };
    if (scanned >= SCAN_LIMIT) return { rows, resumeAfter: position };
  }
}

function checkFilter(filter: Filter, column: Column | undefined, index: number): void {
  if (!column) throw new DataQueryError(`No column named "${filter.column}".`, `/where/${index}/column`);
  if (filter.value === null) {
    if (filter.op !== "eq" && filter.op !== "ne") throw new DataQueryError("null compares only with eq or ne.", `/where/${index}/op`);
    return;
  }
  const expected = column.type === "integer" || column.type === "number" ? "number" : column.type === "boolean" ? "boolean" : "string";
  if (typeof filter.value !== expected) throw new DataQueryError(`Column "${column.name}" holds ${column.type} values.`, `/where/${index}/value`);
  if (filter.op === "contains" && expected !== "string") throw new DataQueryError("contains applies to text columns.", `/where/${index}/op`);
}

function matches(cell: CellValue, filter: Filter): boolean {
  const { op, value } = filter;
  if (op === "eq") return cell === value;
  if (op === "ne") return cell !== value;
  if (cell === null || value === null) return false;
  if (op === "contains") return typeof cell === "string" && cell.toLowerCase().includes(String(value).toLowerCase());
  if (typeof cell !== typeof value) return false;
  if (op === "lt") return cell < value;
  if (op === "lte") return cell <= value;
  if (op === "gt") return cell > value;
  return cell >= value;
}
