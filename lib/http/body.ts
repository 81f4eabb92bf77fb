import { env } from "@/lib/env";
import { ApiError } from "./errors";

// The one JSON body reader of /v1. Everything a hostile body can do to the parser
// or to the code after it is bounded here, before a handler sees the value: size,
// media type, nesting depth, and strings that are not valid Unicode.

/** `application/json` and any `application/<something>+json`; nothing that merely starts like them. */
export function isJsonMediaType(contentType: string): boolean {
  const mediaType = contentType.split(";")[0].trim().toLowerCase();
  return mediaType === "application/json" || /^application\/[a-z0-9!#$&^_.-]+\+json$/.test(mediaType);
}

/**
 * The deepest nesting of arrays and objects in a JSON text, counted without
 * parsing it (brackets inside strings do not count), so a body nested 20 000
 * levels is refused before JSON.parse or any recursive walk can blow the stack.
 * Stops counting as soon as `limit` is exceeded.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The path of the first key or string holding a lone UTF-16 surrogate (which no
 * database or hash can store faithfully), or null. Iterative: a body may nest
 * deeper than the call stack when its endpoint lets the handler bound the depth.
 */
export function findLoneSurrogate(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, "body"]];
  while (stack.length > 0) {
    const [item, path] = stack.pop()!;
    if (typeof item === "string") {
      if (LONE_SURROGATE.test(item)) return path;
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], `${path}[${i}]`]);
    } else if (item !== null && typeof item === "object") {
      const entries = Object.entries(item);
      for (const [key] of entries) if (LONE_SURROGATE.test(key)) return path;
      for (let i = entries.length - 1; i >= 0; i--)
        stack.push([entries[i][1], path === "body" ? entries[i][0] : `${path}.${entries[i][0]}`]);
    }
  }
  return null;
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The body as text, read no further than GUICHET_MAX_BODY_BYTES: a declared
 * Content-Length over it is refused unread, and a chunked body is cut off as
 * soon as it passes the limit, so an oversized body is never buffered whole.
 * Bytes that are not UTF-8 answer `invalidUtf8` instead of being replaced by
 * U+FFFD, so what is stored is always what the client sent.
 */
export async function readBoundedBody(
  request: Request,
): Promise<{ text: string } | { tooLarge: true } | { invalidUtf8: true }> {
  const limit = env.GUICHET_MAX_BODY_BYTES;
  const declared = request.headers.get("content-length");
  if (Number(declared ?? "0") > limit) return { tooLarge: true };
  if (declared !== null && /^\d+$/.test(declared)) {
    // A declared length within the limit: Node's parser reads exactly that many bytes, so the body is read
    // whole at once (the data plane's adapter then reads it from the socket, without a Web stream).
    const bytes = Buffer.from(await request.arrayBuffer());
    if (bytes.byteLength > limit) return { tooLarge: true };
    return decodeStrict([bytes]);
  }
  if (!request.body) return { text: "" };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return { tooLarge: true };
    }
    chunks.push(value);
  }
  return decodeStrict(chunks);
}

function decodeStrict(chunks: Uint8Array[]): { text: string } | { invalidUtf8: true } {
  try {
    return { text: STRICT_UTF8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)) };
  } catch {
    return { invalidUtf8: true };
  }
}

/**
 * JSON text to a value within the bounds every body gets: nesting depth checked
 * before parsing (`maxDepth` defaults to GUICHET_MAX_JSON_DEPTH), strings that
 * are not valid Unicode after. Throws the typed 400 that says why not.
 */
export function parseJsonText(text: string, maxDepth: number = env.GUICHET_MAX_JSON_DEPTH): unknown {
  if (Number.isFinite(maxDepth) && jsonDepthExceeds(text, maxDepth)) {
    throw new ApiError("json_too_deep", `The body nests arrays and objects deeper than ${maxDepth} levels.`, {
      reason: { max_depth: maxDepth },
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError("invalid_json", "The body is not valid JSON.");
  }
  const field = findLoneSurrogate(value);
  if (field) {
    throw new ApiError(
      "invalid_parameter",
      "The body holds a string that is not valid Unicode (a lone UTF-16 surrogate).",
      {
        errors: [{ field, code: "invalid_unicode", message: "Lone UTF-16 surrogates are not allowed." }],
      },
    );
  }
  return value;
}

/**
 * Reads and parses a /v1 JSON body, or throws the typed 4xx that says why not. An
 * empty body reads as `{}`. `maxDepth` defaults to GUICHET_MAX_JSON_DEPTH.
 */
export async function readJsonBody(request: Request, maxDepth: number = env.GUICHET_MAX_JSON_DEPTH): Promise<unknown> {
  const body = await readBoundedBody(request);
  if ("tooLarge" in body)
    throw new ApiError("payload_too_large", `The body exceeds ${env.GUICHET_MAX_BODY_BYTES} bytes.`);
  if ("invalidUtf8" in body) {
    if (!isJsonMediaType(request.headers.get("content-type") ?? "")) {
      throw new ApiError("unsupported_media_type", "Send JSON with Content-Type: application/json.");
    }
    throw new ApiError("invalid_json", "The body is not valid JSON: it holds bytes that are not UTF-8.");
  }
  if (body.text.trim() === "") return {};
  if (!isJsonMediaType(request.headers.get("content-type") ?? "")) {
    throw new ApiError("unsupported_media_type", "Send JSON with Content-Type: application/json.");
  }
  return parseJsonText(body.text, maxDepth);
}
