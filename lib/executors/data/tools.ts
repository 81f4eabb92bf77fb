import { countRows, DataQueryError, findTable, listDataBases, queryRows, type Filter } from "@/lib/data/service";
import { ToolError } from "@/lib/executors/errors";
import { throwIfCancelled } from "../native/errors";
import { JSON_SCHEMA_2020, type JsonSchema } from "../native/types";
import type { ExecutionContext, Executor } from "../context";

// The data tools: list the organization's data bases, describe a table, read
// its rows a page at a time. Read-only; stored text may come from anyone, so
// results are marked untrusted.

const name = { type: "string", minLength: 1, maxLength: 100 };
const cell = { type: ["string", "number", "boolean", "null"] };
const column = { type: "object", properties: { name: { type: "string" }, type: { enum: ["text", "integer", "number", "boolean", "date"] } }, required: ["name", "type"], additionalProperties: false };
const closed = (properties: Record<string, unknown>, required: string[]): JsonSchema => ({ $schema: JSON_SCHEMA_2020, type: "object", properties, required, additionalProperties: false });
const cursor = { type: "string", minLength: 1, maxLength: 200, description: "next_cursor of the previous page." };

export const dataToolSchemas: Record<"list_data_bases" | "describe_table" | "query_table", { input: JsonSchema; output: JsonSchema }> = {
  list_data_bases: {
    input: closed({ limit: { type: "integer", minimum: 1, maximum: 50, default: 20 }, cursor }, []),
    output: closed({
      data_bases: {
        type: "array", maxItems: 50,
        items: {
          type: "object", additionalProperties: false, required: ["name", "description", "tables"],
          properties: {
            name: { type: "string" }, description: { type: "string" },
            tables: { type: "array", items: { type: "object", additionalProperties: false, required: ["name", "row_count", "column_count"], properties: { name: { type: "string" }, row_count: { type: "integer" }, column_count: { type: "integer" } } } },
          },
        },
      },
      next_cursor: { type: ["string", "null"] }, untrusted: { const: true },
    }, ["data_bases", "next_cursor", "untrusted"]),
  },
  describe_table: {
    input: closed({ data_base: name, table: name }, ["data_base", "table"]),
    output: closed({ data_base: { type: "string" }, table: { type: "string" }, columns: { type: "array", items: column }, row_count: { type: "integer", minimum: 0 }, untrusted: { const: true } }, ["data_base", "table", "columns", "row_count", "untrusted"]),
  },
  query_table: {
    input: closed({
      data_base: name,
      table: name,
      columns: { type: "array", items: name, minItems: 1, maxItems: 50, uniqueItems: true, description: "Columns to return (default: all)." },
      where: {
        type: "array", maxItems: 10, description: "Filters, all of which must hold.",
        items: { type: "object", additionalProperties: false, required: ["column", "op", "value"], properties: { column: name, op: { enum: ["eq", "ne", "lt", "lte", "gt", "gte", "contains"] }, value: { type: ["string", "number", "boolean", "null"], maxLength: 500 } } },
      },
      limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
      cursor,
    }, ["data_base", "table"]),
    output: closed({
      data_base: { type: "string" }, table: { type: "string" }, columns: { type: "array", items: { type: "string" } },
      rows: { type: "array", maxItems: 100, items: { type: "object", additionalProperties: cell } },
      next_cursor: { type: ["string", "null"] }, untrusted: { const: true },
    }, ["data_base", "table", "columns", "rows", "next_cursor", "untrusted"]),
  },
};

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

function decode<T>(value: string, check: (v: unknown) => v is T): T {
  try {
    const parsed = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as unknown;
    if (check(parsed)) return parsed;
  } catch {
    // fall through
  }
  throw new ToolError("INVALID_ARGUMENTS", "This cursor is not a next_cursor of this listing.", { field: "/cursor" });
}

/** Service refusals of a well-formed call keep their pointer into the arguments. */
async function refusing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DataQueryError) throw new ToolError("INVALID_ARGUMENTS", error.message, { field: error.field });
    throw error;
  }
}

async function listBases(args: unknown, ctx: ExecutionContext) {
  throwIfCancelled(ctx.signal);
  const input = args as { limit?: number; cursor?: string };
  const after = input.cursor === undefined ? null : decode(input.cursor, (v): v is { n: string } => typeof (v as { n?: unknown })?.n === "string").n;
  const { bases, more } = await listDataBases(ctx.run.organizationId, { limit: input.limit ?? 20, after });
  return { data_bases: bases, next_cursor: more ? encode({ n: bases[bases.length - 1].name }) : null, untrusted: true };
}

async function describeTable(args: unknown, ctx: ExecutionContext) {
  const input = args as { data_base: string; table: string };
  return refusing(async () => {
    const table = await findTable(ctx.run.organizationId, input.data_base, input.table);
    return { data_base: table.base, table: table.name, columns: table.columns, row_count: await countRows(ctx.run.organizationId, table.id), untrusted: true };
  });
}

async function queryTable(args: unknown, ctx: ExecutionContext) {
  const input = args as { data_base: string; table: string; columns?: string[]; where?: Filter[]; limit?: number; cursor?: string };
  return refusing(async () => {
    const table = await findTable(ctx.run.organizationId, input.data_base, input.table);
    const names = table.columns.map((c) => c.name);
    input.columns?.forEach((c, i) => {
      if (!names.includes(c)) throw new DataQueryError(`No column named "${c}".`, `/columns/${i}`);
    });
    const after = input.cursor === undefined ? 0 : decode(input.cursor, (v): v is { t: string; p: number } => (v as { t?: unknown })?.t === table.id && Number.isInteger((v as { p?: unknown }).p)).p;
    const selected = input.columns ?? names;
    const { rows, resumeAfter } = await queryRows(ctx.run.organizationId, { id: table.id, columns: table.columns }, { filters: input.where ?? [], limit: input.limit ?? 20, after, signal: ctx.signal });
    return {
      data_base: table.base, table: table.name, columns: selected,
      rows: rows.map((row) => Object.fromEntries(selected.map((c) => [c, row[c] ?? null]))),
      next_cursor: resumeAfter === null ? null : encode({ t: table.id, p: resumeAfter }),
      untrusted: true,
    };
  });
}

export const dataExecutors: Readonly<Record<keyof typeof dataToolSchemas, Executor>> = Object.freeze({
  list_data_bases: { execute: listBases },
  describe_table: { execute: describeTable },
  query_table: { execute: queryTable },
});
