import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

// SSRF rules shared by every outbound request Guichet makes on behalf of an
// agent or an operator (web_fetch, web_search, MCP server URLs).

export type AddressClass = "public" | "private" | "loopback" | "link_local" | "metadata" | "reserved";

export type UrlRefusalReason =
  | "scheme"
  | "credentials"
  | "loopback"
  | "private"
  | "link_local"
  | "metadata"
  | "reserved"
  | "unresolvable";

export class UrlNotAllowedError extends Error {
  readonly reason: UrlRefusalReason;
  constructor(reason: UrlRefusalReason, message: string) {
    super(message);
    this.name = "UrlNotAllowedError";
    this.reason = reason;
  }
}

export interface UrlPolicy {
  allowPrivate?: boolean;
  allowLoopback?: boolean;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface CheckedUrl {
  url: URL;
  /** Every address the hostname resolved to, all of them allowed: connect only to these. */
  addresses: ResolvedAddress[];
}

// Cloud instance metadata endpoints hand out credentials; they are refused
// whatever the operator allows.
const METADATA_ADDRESSES = new Set(["169.254.169.254", "fd00:ec2::254"]);
const METADATA_HOSTNAMES = new Set(["metadata.google.internal", "metadata.goog", "metadata"]);

// ipaddr.js range names mapped to our classes; anything unlisted is "reserved"
// so a range added by a future ipaddr.js release is refused, not let through.
const IPV4_RANGES: Record<string, AddressClass> = {
  unicast: "public",
  as112: "public",
  amt: "public",
  loopback: "loopback",
  private: "private",
  carrierGradeNat: "private",
  linkLocal: "link_local",
};
const IPV6_RANGES: Record<string, AddressClass> = {
  unicast: "public",
  loopback: "loopback",
  uniqueLocal: "private",
  linkLocal: "link_local",
};
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR("2000::/3");

/** Classifies a literal IPv4 or IPv6 address; throws TypeError on anything else. */
export function classifyAddress(ip: string): AddressClass {
  const literal = ip.replace(/^\[(.*)\]$/, "$1");
  if (!isIP(literal.split("%")[0])) throw new TypeError(`Not an IP address: ${ip}`);
  const parsed = ipaddr.parse(literal);
  if (METADATA_ADDRESSES.has(parsed.toString())) return "metadata";
  if (parsed.kind() === "ipv4") return IPV4_RANGES[parsed.range()] ?? "reserved";

  const v6 = parsed as ipaddr.IPv6;
  const range = v6.range();
  // ::ffff:127.0.0.1 reaches 127.0.0.1: judge the embedded IPv4 address.
  if (range === "ipv4Mapped") return classifyAddress(v6.toIPv4Address().toString());
  // NAT64 and 6to4 also carry an IPv4 address a gateway may forward to.
  if (range === "rfc6052") return classifyAddress(embeddedIPv4(v6, 12));
  if (range === "6to4") return classifyAddress(embeddedIPv4(v6, 2));
  const cls = IPV6_RANGES[range] ?? "reserved";
  // ipaddr.js calls every unlisted IPv6 address "unicast"; only 2000::/3 is
  // actually allocated as global unicast.
  if (cls === "public" && !v6.match(IPV6_GLOBAL_UNICAST)) return "reserved";
  return cls;
}

function embeddedIPv4(v6: ipaddr.IPv6, byteOffset: number): string {
  return v6.toByteArray().slice(byteOffset, byteOffset + 4).join(".");
}

/** Why an address class is refused under a policy, or null when it is allowed. */
export function refusalFor(cls: AddressClass, policy: UrlPolicy): UrlRefusalReason | null {
  switch (cls) {
    case "public":
      return null;
    case "loopback":
      return policy.allowLoopback ? null : "loopback";
    case "private":
      return policy.allowPrivate ? null : "private";
    default:
      return cls;
  }
}

const REFUSAL_MESSAGES: Record<UrlRefusalReason, string> = {
  scheme: "only http and https URLs are allowed",
  credentials: "URLs with a user name or password are not allowed",
  loopback: "loopback addresses are not allowed",
  private: "private network addresses are not allowed",
  link_local: "link-local addresses are not allowed",
  metadata: "cloud metadata endpoints are not allowed",
  reserved: "reserved, multicast or unspecified addresses are not allowed",
  unresolvable: "the host name could not be resolved",
};

function refuse(reason: UrlRefusalReason, host: string): never {
  throw new UrlNotAllowedError(reason, `URL refused (${reason}): ${REFUSAL_MESSAGES[reason]} — ${host}`);
}

/**
 * Parses the URL, resolves its host and checks every address it resolves to.
 * Returns the addresses so the caller can connect to exactly what was checked.
 */
export async function assertPublicUrl(input: string | URL, policy: UrlPolicy = {}): Promise<CheckedUrl> {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new UrlNotAllowedError("scheme", "URL refused (scheme): not a valid absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") refuse("scheme", url.protocol);
  if (url.username || url.password) refuse("credentials", url.host);

  const host = url.hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "").toLowerCase();
  if (METADATA_HOSTNAMES.has(host)) refuse("metadata", host);

  const addresses = isIP(host) ? [{ address: host, family: isIP(host) as 4 | 6 }] : await resolveAll(host);
  if (addresses.length === 0) refuse("unresolvable", host);
  // Every address must pass: the connection may use any of them.
  for (const { address } of addresses) {
    const reason = refusalFor(classifyAddress(address), policy);
    if (reason) refuse(reason, `${host} (${address})`);
  }
  return { url, addresses };
}

async function resolveAll(host: string): Promise<ResolvedAddress[]> {
  try {
    const found = await lookup(host, { all: true, verbatim: true });
    return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  } catch {
    return refuse("unresolvable", host);
  }
}
