// Shapes shared by the native executors. Executors know nothing of HTTP
// routes, databases or runs: they get validated arguments and a context.

export type JsonSchema = Record<string, unknown>;

export interface ToolContract {
  /** JSON Schema 2020-12 the dispatcher validates arguments against before execute. */
  inputSchema: JsonSchema;
  /** JSON Schema 2020-12 the dispatcher validates the result against after execute. */
  outputSchema: JsonSchema;
}

export interface ToolContext {
  signal: AbortSignal;
}

export const JSON_SCHEMA_2020 = "https://json-schema.org/draft/2020-12/schema";
