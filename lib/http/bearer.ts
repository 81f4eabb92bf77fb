import type { Principal } from "@/lib/auth/principal";
import { authenticateApiKey } from "@/lib/api-keys/service";
import { ApiError } from "./errors";

/** The API key an `Authorization: Bearer <key>` header carries, or the typed 401 (the same for /v1 and /mcp). */
export async function authenticateBearer(authorization: string | null): Promise<Principal> {
  if (!authorization) throw new ApiError("unauthenticated", "Missing API key: send Authorization: Bearer <key>.");
  const match = /^Bearer\s+(\S+)$/i.exec(authorization);
  const principal = match ? await authenticateApiKey(match[1]) : null;
  if (!principal) throw new ApiError("unauthenticated", "Invalid or revoked API key.");
  return principal;
}
