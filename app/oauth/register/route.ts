import { InvalidClientMetadataError, TooManyRequestsError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { clientAddress } from "@/lib/auth/client-address";
import { env } from "@/lib/env";
import { hitExactly } from "@/lib/http/rate-limit";
import { registerClient } from "@/lib/oauth/clients";
import { bodyText, oauthEndpoint, oauthJson, preflight } from "@/lib/oauth/http";

// RFC 7591 Dynamic Client Registration: open to anyone (that is its point), so limited per address.
export async function POST(request: Request) {
  return oauthEndpoint("register", async () => {
    const from = clientAddress(request.headers);
    // Counted one by one (no block taken ahead): the limit is small and must hold exactly on every instance.
    const decision = await hitExactly(`oauth-register:${from}`, env.GUICHET_OAUTH_REGISTRATIONS_PER_HOUR, 3_600_000);
    if (!decision.allowed)
      return oauthJson(
        429,
        new TooManyRequestsError("Too many client registrations from this address.").toResponseObject(),
        { "retry-after": String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))) },
      );
    let raw: unknown;
    try {
      raw = JSON.parse(await bodyText(request));
    } catch (error) {
      if (error instanceof SyntaxError) throw new InvalidClientMetadataError("The body must be a JSON object.");
      throw error;
    }
    return oauthJson(201, await registerClient(raw, from));
  });
}

export const OPTIONS = preflight;
