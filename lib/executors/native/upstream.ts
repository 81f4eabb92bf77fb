import { SafeFetchError } from "../../net/safe-fetch";
import { UrlNotAllowedError } from "../../net/ssrf";
import { ToolError } from "@/lib/executors/errors";

// One translation from network outcomes to tool failures, so web_fetch and
// web_search report the same code for the same situation.

/**
 * Maps a safeFetch error to a ToolError. `refusedUrlField` is the argument
 * pointer to blame when the URL came from the agent; when it is null the URL
 * came from the operator and a refusal means the tool is misconfigured.
 */
export function toToolError(err: unknown, refusedUrlField: string | null): ToolError {
  if (err instanceof ToolError) return err;
  if (err instanceof UrlNotAllowedError) {
    return refusedUrlField
      ? new ToolError("INVALID_ARGUMENTS", `${err.message} (reason: ${err.reason})`, { field: refusedUrlField })
      : new ToolError("TOOL_UNAVAILABLE", `The configured backend URL is refused: ${err.message}`);
  }
  if (err instanceof SafeFetchError) {
    switch (err.kind) {
      case "timeout":
        return new ToolError("TIMEOUT", `The upstream server did not answer in time (${err.message}).`, {
          retryable: true,
        });
      case "aborted":
        return new ToolError("CANCELLED", "The tool call was cancelled.");
      case "too_many_redirects":
        return new ToolError("UPSTREAM_ERROR", `The upstream server redirected too many times (${err.message}).`);
      case "network":
        return new ToolError("UPSTREAM_ERROR", `The upstream server could not be reached: ${err.message}`, {
          retryable: true,
        });
    }
  }
  return new ToolError("UPSTREAM_ERROR", "The upstream request failed.", { retryable: true });
}

/** Non-2xx answers are upstream errors; only overload and server faults are worth retrying. */
export function assertSuccessStatus(status: number): void {
  if (status >= 200 && status < 300) return;
  const retryable = status >= 500 || status === 429;
  throw new ToolError("UPSTREAM_ERROR", `The upstream server answered HTTP ${status}.`, { retryable });
}

/** Splits a Content-Type header into its lower-cased media type and charset. */
export function parseContentType(header: string | null): { mediaType: string | null; charset: string | null } {
  if (!header) return { mediaType: null, charset: null };
  const [type, ...params] = header.split(";");
  const charsetParam = params.map((p) => p.trim()).find((p) => p.toLowerCase().startsWith("charset="));
  const charset = charsetParam ? charsetParam.slice("charset=".length).replace(/^"|"$/g, "").trim() : null;
  return { mediaType: type.trim().toLowerCase() || null, charset };
}

/** Decodes a body in its declared charset, falling back to UTF-8 for unknown labels. */
export function decodeBody(body: Buffer, charset: string | null): string {
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

/** Cuts text to at most `max` UTF-16 units without splitting a surrogate pair. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}
