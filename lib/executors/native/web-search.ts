import { safeFetch } from "../../net/safe-fetch";
import { ToolError } from "@/lib/executors/errors";
import { throwIfCancelled } from "./errors";
import { JSON_SCHEMA_2020, type ToolContext, type ToolContract } from "./types";
import { assertSuccessStatus, decodeBody, parseContentType, toToolError, truncateText } from "./upstream";

// Web search through a SearXNG-compatible JSON endpoint run by the operator.
// Results are third-party text: marked untrusted, bounded in size.

export interface WebSearchInput {
  query: string;
  max_results?: number;
}

export interface WebSearchResult {
  title: string;
  url: string;
  snippet: string;
}

export interface WebSearchOutput {
  results: WebSearchResult[];
  untrusted: true;
}

/** Operator settings, passed in by the dispatcher (executors read no environment). */
export interface WebSearchConfig {
  /** e.g. http://127.0.0.1:8888/search; null or absent when no backend is configured. */
  searchUrl?: string | null;
  /** Operator-allowlisted private origins: the backend may sit on one of them. */
  privateOrigins?: readonly string[];
  timeoutMs?: number;
  maxBytes?: number;
}

export type WebSearchContext = ToolContext & WebSearchConfig;

export const WEB_SEARCH_DEFAULT_MAX_RESULTS = 5;
const MAX_TITLE_CHARS = 300;
const MAX_SNIPPET_CHARS = 1000;

const result = {
  type: "object",
  properties: {
    title: { type: "string", maxLength: MAX_TITLE_CHARS },
    url: { type: "string" },
    snippet: { type: "string", maxLength: MAX_SNIPPET_CHARS },
  },
  required: ["title", "url", "snippet"],
  additionalProperties: false,
};

export const webSearchContract: ToolContract = {
  inputSchema: {
    $schema: JSON_SCHEMA_2020,
    type: "object",
    properties: {
      query: { type: "string", minLength: 1, maxLength: 400 },
      max_results: { type: "integer", minimum: 1, maximum: 20, default: WEB_SEARCH_DEFAULT_MAX_RESULTS },
    },
    required: ["query"],
    additionalProperties: false,
  },
  outputSchema: {
    $schema: JSON_SCHEMA_2020,
    type: "object",
    properties: {
      results: { type: "array", items: result, maxItems: 20 },
      untrusted: { const: true },
    },
    required: ["results", "untrusted"],
    additionalProperties: false,
  },
};

// web_search — search the web through the configured backend
export async function webSearch(args: WebSearchInput, ctx: WebSearchContext): Promise<WebSearchOutput> {
  throwIfCancelled(ctx.signal);
  if (!ctx.searchUrl) {
    throw new ToolError("TOOL_UNAVAILABLE", "No search backend is configured (GUICHET_SEARCH_URL).");
  }
  let endpoint: URL;
  try {
    endpoint = new URL(ctx.searchUrl);
  } catch {
    throw new ToolError(
      "TOOL_UNAVAILABLE",
      "The configured search backend URL is not a valid URL (GUICHET_SEARCH_URL).",
    );
  }
  endpoint.searchParams.set("q", args.query);
  endpoint.searchParams.set("format", "json");

  let response;
  try {
    // The operator chose this URL: it may sit on loopback or the private network
    // when its origin is allowlisted; link-local and metadata addresses stay refused.
    response = await safeFetch(endpoint, {
      privateOrigins: ctx.privateOrigins ?? [],
      timeoutMs: ctx.timeoutMs ?? 10_000,
      maxBytes: ctx.maxBytes ?? 2_000_000,
      signal: ctx.signal,
      headers: { accept: "application/json" },
    });
  } catch (err) {
    throw toToolError(err, null);
  }
  assertSuccessStatus(response.status);

  const payload = parseJson(decodeBody(response.body, parseContentType(response.contentType).charset));
  const items = isRecord(payload) && Array.isArray(payload.results) ? payload.results : null;
  if (!items) throw new ToolError("UPSTREAM_ERROR", "The search backend answered without a results list.");
  return { results: toResults(items, args.max_results ?? WEB_SEARCH_DEFAULT_MAX_RESULTS), untrusted: true };
}

// Only the three documented fields leave, and only for http(s) links: the
// backend relays arbitrary sites, so anything else is dropped.
function toResults(items: unknown[], max: number): WebSearchResult[] {
  const results: WebSearchResult[] = [];
  for (const item of items) {
    if (results.length >= max) break;
    if (!isRecord(item) || typeof item.url !== "string" || !/^https?:\/\//i.test(item.url)) continue;
    results.push({
      title: truncateText(typeof item.title === "string" ? item.title.trim() : "", MAX_TITLE_CHARS),
      url: item.url,
      snippet: truncateText(typeof item.content === "string" ? item.content.trim() : "", MAX_SNIPPET_CHARS),
    });
  }
  return results;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ToolError("UPSTREAM_ERROR", "The search backend did not answer with valid JSON.");
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
