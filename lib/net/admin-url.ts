import "server-only";
import { env } from "@/lib/env";
import { ApiError } from "@/lib/http/errors";
import { assertPublicUrl, UrlNotAllowedError } from "./ssrf";

/**
 * The rule for URLs an admin chooses (MCP servers, model providers): public
 * addresses, and loopback or private ones only for the operator's allowlisted
 * origins. A refusal is `422 url_not_allowed` naming the body field.
 */
export async function assertAdminUrl(url: string, field: string): Promise<void> {
  try {
    await assertPublicUrl(url, { privateOrigins: env.privateOrigins });
  } catch (error) {
    if (!(error instanceof UrlNotAllowedError)) throw error;
    throw new ApiError("url_not_allowed", error.message, {
      errors: [{ field, code: error.reason, message: error.message }],
    });
  }
}
