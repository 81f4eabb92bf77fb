// The built-in part of the catalog: native tools and data tools. MCP tools come
// from the organization's connectors (lib/catalog/service.ts).

export interface BuiltinTool {
  key: string;
  label: string;
  description: string;
  kind: "native" | "data";
  /** Carried by every agent whether listed or not. */
  forced: boolean;
  /** Automatic, but only on runs that have input files or documents. */
  fileTool: boolean;
  /**
   * Server settings (environment variables) the tool cannot work without. While one is unset the tool is
   * in the catalog as unavailable (`not_configured`, naming the setting) and no run is offered it.
   */
  requires?: BuiltinSetting[];
}

/** The settings a built-in may require; lib/catalog/service.ts reads them from the environment. */
export type BuiltinSetting = "GUICHET_SEARCH_URL";

export const builtinTools: BuiltinTool[] = [
  {
    key: "web_search",
    label: "Web search",
    description: "Searches the web and returns results with their URLs.",
    kind: "native",
    forced: true,
    fileTool: false,
    requires: ["GUICHET_SEARCH_URL"],
  },
  {
    key: "web_fetch",
    label: "Web fetch",
    description: "Fetches a public web page and returns its readable text.",
    kind: "native",
    forced: true,
    fileTool: false,
  },
  {
    key: "calculate",
    label: "Calculator",
    description: "Evaluates an arithmetic expression exactly as written.",
    kind: "native",
    forced: true,
    fileTool: false,
  },
  {
    key: "create_chart",
    label: "Chart",
    description: "Creates a bar, line, pie or area chart, returned as structured data.",
    kind: "native",
    forced: false,
    fileTool: false,
  },
  {
    key: "inspect_file",
    label: "Inspect file",
    description: "Returns a file's name, type, size and structure (pages, lines, columns).",
    kind: "native",
    forced: false,
    fileTool: true,
  },
  {
    key: "read_uploaded_file",
    label: "Read file",
    description: "Reads a page of a file's text, with a cursor for the next page.",
    kind: "native",
    forced: false,
    fileTool: true,
  },
  {
    key: "search_text",
    label: "Search text",
    description: "Finds a phrase in the run's files and returns the matching lines.",
    kind: "native",
    forced: false,
    fileTool: true,
  },
  {
    key: "list_uploaded_files",
    label: "List files",
    description: "Lists the files of the run and the agent's documents.",
    kind: "native",
    forced: false,
    fileTool: true,
  },
  {
    key: "list_data_bases",
    label: "List data bases",
    description: "Lists the data bases of the organization and their tables.",
    kind: "data",
    forced: false,
    fileTool: false,
  },
  {
    key: "describe_table",
    label: "Describe table",
    description: "Returns the columns and row count of a table.",
    kind: "data",
    forced: false,
    fileTool: false,
  },
  {
    key: "query_table",
    label: "Query table",
    description: "Reads rows of a table with simple filters, a page at a time.",
    kind: "data",
    forced: false,
    fileTool: false,
  },
  {
    key: "get_operation",
    label: "Get operation",
    description: "Reads one of the run's write operations; a long one is followed at the service until it ends.",
    kind: "native",
    forced: false,
    fileTool: false,
  },
];

export const forcedToolKeys = builtinTools.filter((t) => t.forced).map((t) => t.key);
export const fileToolKeys = builtinTools.filter((t) => t.fileTool).map((t) => t.key);

export const STRUCTURED_DATA_FEATURE = "structured_data";
