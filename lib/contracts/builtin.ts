import { dataToolSchemas } from "@/lib/executors/data/tools";
import { fileToolSchemas } from "@/lib/executors/files/tools";
import { nativeExecutors } from "@/lib/executors/native";
import { operationToolSchemas } from "@/lib/executors/operations/tools";
import { declaredFields } from "./result-view";
import type { Contract, JsonSchema } from "./types";

// Contracts of the built-in tools, every published version. A published version
// never changes (contracts.lock.json holds their fingerprints and a test fails
// on any edit): to change a schema, append a new version and keep the old one
// callable by the runs that started on it; mark it retired once none can.

export interface BuiltinContractEntry {
  contract: Contract;
  /** No run may call it any more, even one that started on it. */
  retired: boolean;
}

function readContract(
  key: string,
  version: number,
  kind: "native" | "data",
  schemas: { input: JsonSchema; output: JsonSchema },
  extra: { timeout_ms: number; max_argument_bytes: number; result_view?: string[] },
): Contract {
  return {
    key,
    version,
    kind,
    input_schema: schemas.input,
    output_schema: schemas.output,
    effect: "read",
    retry: "safe",
    idempotency: null,
    preview: null,
    target: null,
    status_tool: null,
    timeout_ms: extra.timeout_ms,
    max_argument_bytes: extra.max_argument_bytes,
    result_view: extra.result_view ?? declaredFields(schemas.output),
    cancellation: "abort",
    mcp: null,
  };
}

const native = (key: keyof typeof nativeExecutors) => ({
  input: nativeExecutors[key].contract.inputSchema,
  output: nativeExecutors[key].contract.outputSchema,
});

/**
 * The schemas of a published version with bounds added at schema pointers: the
 * next version of a tool whose fields lacked the bounds their type allows (the
 * contracts lock test walks every field of the versions new runs get).
 */
function bounded(
  schemas: { input: JsonSchema; output: JsonSchema },
  bounds: Record<string, Record<string, number>>,
): { input: JsonSchema; output: JsonSchema } {
  const input = JSON.parse(JSON.stringify(schemas.input)) as JsonSchema;
  for (const [pointer, keywords] of Object.entries(bounds)) {
    let node = input as Record<string, unknown>;
    for (const segment of pointer.split("/").slice(1)) node = node[segment] as Record<string, unknown>;
    if (!node || typeof node !== "object") throw new Error(`No schema at ${pointer}`);
    Object.assign(node, keywords);
  }
  return { input, output: schemas.output };
}

// Chart values and compared values are numbers a JavaScript number holds exactly.
const finite = { minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };
/** `file_` and 26 characters; `op_` and 26 characters. */
const fileIdLength = { maxLength: 31 };
const operationIdLength = { maxLength: 29 };

export const builtinContracts: readonly BuiltinContractEntry[] = Object.freeze(
  [
    readContract("calculate", 1, "native", native("calculate"), { timeout_ms: 2_000, max_argument_bytes: 4_096 }),
    readContract("create_chart", 1, "native", native("create_chart"), {
      timeout_ms: 2_000,
      max_argument_bytes: 262_144,
    }),
    readContract("web_fetch", 1, "native", native("web_fetch"), { timeout_ms: 15_000, max_argument_bytes: 4_096 }),
    readContract("web_search", 1, "native", native("web_search"), { timeout_ms: 15_000, max_argument_bytes: 2_048 }),
    readContract("list_uploaded_files", 1, "native", fileToolSchemas.list_uploaded_files, {
      timeout_ms: 5_000,
      max_argument_bytes: 256,
    }),
    readContract("inspect_file", 1, "native", fileToolSchemas.inspect_file, {
      timeout_ms: 10_000,
      max_argument_bytes: 512,
    }),
    readContract("read_uploaded_file", 1, "native", fileToolSchemas.read_uploaded_file, {
      timeout_ms: 10_000,
      max_argument_bytes: 1_024,
    }),
    readContract("search_text", 1, "native", fileToolSchemas.search_text, {
      timeout_ms: 10_000,
      max_argument_bytes: 4_096,
    }),
    readContract("list_data_bases", 1, "data", dataToolSchemas.list_data_bases, {
      timeout_ms: 5_000,
      max_argument_bytes: 1_024,
    }),
    readContract("describe_table", 1, "data", dataToolSchemas.describe_table, {
      timeout_ms: 5_000,
      max_argument_bytes: 1_024,
    }),
    readContract("query_table", 1, "data", dataToolSchemas.query_table, {
      timeout_ms: 10_000,
      max_argument_bytes: 16_384,
    }),
    readContract("get_operation", 1, "native", operationToolSchemas.get_operation, {
      timeout_ms: 15_000,
      max_argument_bytes: 256,
    }),
    // Version 2 of the tools whose version 1 left a field unbounded; version 1 stays for the runs that started on it.
    readContract(
      "create_chart",
      2,
      "native",
      bounded(native("create_chart"), {
        "/properties/series/items/properties/points/items/properties/x/anyOf/1": finite,
        "/properties/series/items/properties/points/items/properties/y": finite,
      }),
      { timeout_ms: 2_000, max_argument_bytes: 262_144 },
    ),
    readContract(
      "inspect_file",
      2,
      "native",
      bounded(fileToolSchemas.inspect_file, { "/properties/file_id": fileIdLength }),
      { timeout_ms: 10_000, max_argument_bytes: 512 },
    ),
    readContract(
      "read_uploaded_file",
      2,
      "native",
      bounded(fileToolSchemas.read_uploaded_file, { "/properties/file_id": fileIdLength }),
      { timeout_ms: 10_000, max_argument_bytes: 1_024 },
    ),
    readContract(
      "search_text",
      2,
      "native",
      bounded(fileToolSchemas.search_text, { "/properties/file_ids/items": fileIdLength }),
      { timeout_ms: 10_000, max_argument_bytes: 4_096 },
    ),
    readContract(
      "query_table",
      2,
      "data",
      bounded(dataToolSchemas.query_table, { "/properties/where/items/properties/value": finite }),
      { timeout_ms: 10_000, max_argument_bytes: 16_384 },
    ),
    readContract(
      "get_operation",
      2,
      "native",
      bounded(operationToolSchemas.get_operation, { "/properties/operation_id": operationIdLength }),
      { timeout_ms: 15_000, max_argument_bytes: 256 },
    ),
  ].map((contract) => Object.freeze({ contract, retired: false })),
);

const byName = new Map(builtinContracts.map((entry) => [`${entry.contract.key}@${entry.contract.version}`, entry]));
const current = new Map<string, Contract>();
for (const { contract, retired } of builtinContracts) {
  const known = current.get(contract.key);
  if (!retired && (!known || known.version < contract.version)) current.set(contract.key, contract);
}

/** The exact built-in contract version, retired or not; undefined when never published. */
export function builtinContract(key: string, version: number): BuiltinContractEntry | undefined {
  return byName.get(`${key}@${version}`);
}

/** The version new runs get. */
export function currentBuiltinContract(key: string): Contract | undefined {
  return current.get(key);
}

export function isBuiltinKey(key: string): boolean {
  return current.has(key) || builtinContracts.some((e) => e.contract.key === key);
}

export function builtinVersions(key: string): BuiltinContractEntry[] {
  return builtinContracts.filter((e) => e.contract.key === key);
}
