import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { commaList } from "@/lib/comma-list";

// SSRF rules shared by every outbound request Guichet makes on behalf of an
// agent or an operator (web_fetch, web_search, MCP server URLs).
//
// Who chose the destination decides what it may be. A URL chosen by a model or
// an API caller (web_fetch and its redirects) must be public, always. A URL an
// admin or the operator chose (an MCP server, the search backend) may also be on
// loopback or a private network, but only when its origin is in the operator's
// allowlist (GUICHET_PRIVATE_ORIGINS). Link-local, metadata and reserved
// addresses are refused for everyone.

export type AddressClass = "public" | "private" | "loopback" | "link_local" | "metadata" | "reserved";

export type UrlRefusalReason =
  "scheme" | "credentials" | "loopback" | "private" | "link_local" | "metadata" | "reserved" | "unresolvable";

export class UrlNotAllowedError extends Error {
  readonly reason: UrlRefusalReason;
  constructor(reason: UrlRefusalReason, message: string) {
    super(message);
    this.name = "UrlNotAllowedError";
    this.reason = reason;
  }
}

export interface UrlPolicy {
  /**
   * Origins (`http://127.0.0.1:4010`) allowed to resolve to loopback or private
   * addresses. Only for admin-chosen destinations; a model's URL gets none.
   */
  privateOrigins?: readonly string[];
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
  return v6
    .toByteArray()
    .slice(byteOffset, byteOffset + 4)
    .join(".");
}

/** Why an address class is refused, or null when it is allowed; loopback and private only for an allowlisted origin. */
export function refusalFor(cls: AddressClass, originAllowlisted: boolean): UrlRefusalReason | null {
  switch (cls) {
    case "public":
      return null;
    case "loopback":
    case "private":
      return originAllowlisted ? null : cls;
    default:
      return cls;
  }
}

/** `scheme://host:port` as URL.origin writes it, or null for anything that is not an http(s) URL. */
export function normalizeOrigin(value: string): string | null {
  if (!URL.canParse(value)) return null;
  const url = new URL(value);
  return url.protocol === "http:" || url.protocol === "https:" ? url.origin : null;
}

function originAllowlisted(url: URL, policy: UrlPolicy): boolean {
  return (policy.privateOrigins ?? []).some((origin) => normalizeOrigin(origin) === url.origin);
}

/**
 * Test stacks only (NODE_ENV=test or GUICHET_TEST_STACK=1): names under the
 * reserved `.test` domain mapped to an address and treated as public, so tests
 * exercise the public path against a local server without any switch that
 * opens loopback. `GUICHET_TEST_HOSTS="*.test=127.0.0.1,page.test=::1"`.
 */
export function testHostAddresses(host: string): ResolvedAddress[] | null {
  const raw = process.env.GUICHET_TEST_HOSTS;
  if (!raw || !host.endsWith(".test")) return null;
  if (process.env.NODE_ENV !== "test" && process.env.GUICHET_TEST_STACK !== "1") return null;
  for (const entry of commaList(raw)) {
    const [pattern, address] = entry.split("=").map((part) => part.trim().toLowerCase());
    if (!pattern || !address || !isIP(address)) continue;
    const matches = pattern.startsWith("*.") ? host.endsWith(pattern.slice(1)) : host === pattern;
    if (matches && pattern.endsWith(".test")) return [{ address, family: isIP(address) as 4 | 6 }];
  }
  return null;
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

  const host = url.hostname
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "")
    .toLowerCase();
  if (METADATA_HOSTNAMES.has(host)) refuse("metadata", host);

  const testHost = testHostAddresses(host);
  if (testHost) return { url, addresses: testHost };
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) as 4 | 6 }] : await resolveAll(host);
  if (addresses.length === 0) refuse("unresolvable", host);
  const allowlisted = originAllowlisted(url, policy);
  // Every address must pass: the connection may use any of them.
  for (const { address } of addresses) {
    const reason = refusalFor(classifyAddress(address), allowlisted);
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
