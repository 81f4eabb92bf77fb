import { safeFetch } from "../../net/safe-fetch";
import { ToolError } from "@/lib/executors/errors";
import { throwIfCancelled } from "./errors";
import { htmlToText } from "./html-text";
import { JSON_SCHEMA_2020, type ToolContext, type ToolContract } from "./types";
import { assertSuccessStatus, decodeBody, parseContentType, toToolError, truncateText } from "./upstream";

// Reads a web page for an agent as plain text. The page is someone else's
// content: it is marked untrusted and never returned as HTML.

export interface WebFetchInput {
  url: string;
  max_chars?: number;
}

export interface WebFetchOutput {
  url: string;
  final_url: string;
  status: number;
  content_type: string;
  title: string | null;
  text: string;
  truncated: boolean;
  untrusted: true;
}

/** Operator settings, passed in by the dispatcher (executors read no environment). */
/** No address policy here: a model chose the URL, so it and every redirect must be public. */
export interface WebFetchConfig {
  timeoutMs?: number;
  maxBytes?: number;
}

export type WebFetchContext = ToolContext & WebFetchConfig;

export const WEB_FETCH_DEFAULT_MAX_CHARS = 20_000;
const MAX_TITLE_CHARS = 300;
const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);
const TEXT_TYPES = new Set(["text/plain", "text/markdown", "application/json"]);

export const webFetchContract: ToolContract = {
  inputSchema: {
    $schema: JSON_SCHEMA_2020,
    type: "object",
    properties: {
      url: { type: "string", format: "uri", maxLength: 2048, description: "An http(s) URL on the public internet." },
      max_chars: {
        type: "integer",
        minimum: 100,
        maximum: 50_000,
        default: WEB_FETCH_DEFAULT_MAX_CHARS,
        description: "Maximum number of characters of text to return.",
      },
    },
    required: ["url"],
    additionalProperties: false,
  },
  outputSchema: {
    $schema: JSON_SCHEMA_2020,
    type: "object",
    properties: {
      url: { type: "string" },
      final_url: { type: "string" },
      status: { type: "integer" },
      content_type: { type: "string" },
      title: { type: ["string", "null"], maxLength: MAX_TITLE_CHARS },
      text: { type: "string", maxLength: 50_000 },
      truncated: { type: "boolean" },
      untrusted: { const: true },
    },
    required: ["url", "final_url", "status", "content_type", "title", "text", "truncated", "untrusted"],
    additionalProperties: false,
  },
};

// web_fetch — fetch a public web page and return its readable text
export async function webFetch(args: WebFetchInput, ctx: WebFetchContext): Promise<WebFetchOutput> {
  throwIfCancelled(ctx.signal);
  const maxChars = args.max_chars ?? WEB_FETCH_DEFAULT_MAX_CHARS;
  let response;
  try {
    response = await safeFetch(args.url, {
      timeoutMs: ctx.timeoutMs ?? 10_000,
      maxBytes: ctx.maxBytes ?? 2_000_000,
      signal: ctx.signal,
      headers: { accept: "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.1" },
    });
  } catch (err) {
    throw toToolError(err, "/url");
  }
  assertSuccessStatus(response.status);

  const { mediaType, charset } = parseContentType(response.contentType);
  if (!mediaType || (!HTML_TYPES.has(mediaType) && !TEXT_TYPES.has(mediaType))) {
    throw new ToolError(
      "UPSTREAM_ERROR",
      `Unsupported content type ${mediaType ?? "(none)"}: web_fetch reads HTML, plain text, Markdown and JSON.`,
    );
  }
  const decoded = decodeBody(response.body, charset);
  // Plain text, Markdown and JSON keep their layout (indentation carries meaning there).
  const page = HTML_TYPES.has(mediaType)
    ? htmlToText(decoded)
    : { title: null, text: decoded.replace(/\r\n?/g, "\n").trim() };
  const text = truncateText(page.text, maxChars);
  return {
    url: args.url,
    final_url: response.url,
    status: response.status,
    content_type: mediaType,
    title: page.title === null ? null : truncateText(page.title, MAX_TITLE_CHARS),
    text,
    truncated: response.truncated || text.length < page.text.length,
    untrusted: true,
  };
}
