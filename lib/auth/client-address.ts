import { env } from "@/lib/env";
import { PEER_ADDRESS_HEADER } from "@/lib/openapi/method-gate";

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers instanceof Headers ? (headers.get(name) ?? undefined) : headers[name];
  return Array.isArray(value) ? value.at(-1) : value;
}

/**
 * The client's address: the connection's, or with GUICHET_TRUST_PROXY=1 the last
 * X-Forwarded-For entry (the one our own proxy appended; earlier ones are the
 * client's to invent).
 */
export function clientAddress(headers: HeaderBag): string {
  if (env.GUICHET_TRUST_PROXY === "1") {
    const forwarded = header(headers, "x-forwarded-for")?.split(",").at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  return header(headers, PEER_ADDRESS_HEADER) ?? "unknown";
}
