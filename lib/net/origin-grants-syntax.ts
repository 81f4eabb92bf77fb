import { commaList } from "@/lib/comma-list";
/**
 * The syntax of GUICHET_PRIVATE_ORIGINS: comma-separated entries `<origin>=<slug>[|<slug>...]`
 * (granted to those organizations) or `<origin>=*` (every organization — the operator's own
 * shared services). A bare origin is refused: an instance-wide grant must be spelled `=*`, so
 * nobody hands a private address to every tenant by accident.
 */
export interface OriginGrant {
  origin: string;
  /** Organization slugs, or "*" for every organization. */
  orgs: readonly string[] | "*";
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

function syntaxError(name: string, entry: string, why: string): Error {
  return new Error(
    `Invalid environment: ${name} entry "${entry}" ${why}; expected <origin>=<slug>[|<slug>...] or <origin>=* like http://127.0.0.1:4010=acme`,
  );
}

export function parseOriginGrants(name: string, value: string): readonly OriginGrant[] {
  const byOrigin = new Map<string, Set<string> | "*">();
  for (const entry of commaList(value)) {
    const eq = entry.lastIndexOf("=");
    if (eq < 0) throw syntaxError(name, entry, "has no grant");
    const originPart = entry.slice(0, eq).trim();
    const grantPart = entry.slice(eq + 1).trim();
    const url = URL.canParse(originPart) ? new URL(originPart) : null;
    if (
      !url ||
      (url.protocol !== "http:" && url.protocol !== "https:") ||
      (url.pathname !== "/" && url.pathname !== "") ||
      url.search ||
      url.hash
    ) {
      throw syntaxError(name, entry, "is not an http(s) origin");
    }
    const previous = byOrigin.get(url.origin);
    if (grantPart === "*") {
      byOrigin.set(url.origin, "*");
      continue;
    }
    const slugs = grantPart.split("|").map((slug) => slug.trim());
    if (slugs.some((slug) => !SLUG.test(slug))) throw syntaxError(name, entry, "names an invalid organization slug");
    if (previous === "*") continue;
    const set = previous ?? new Set<string>();
    for (const slug of slugs) set.add(slug);
    byOrigin.set(url.origin, set);
  }
  return Object.freeze(
    [...byOrigin].map(([origin, orgs]) =>
      Object.freeze({ origin, orgs: orgs === "*" ? "*" : Object.freeze([...orgs]) }),
    ),
  );
}

/** The origins granted to the organization with this slug (its own and the `*` ones). */
export function originsGrantedTo(grants: readonly OriginGrant[], slug: string): readonly string[] {
  return grants.filter((grant) => grant.orgs === "*" || grant.orgs.includes(slug)).map((grant) => grant.origin);
}

/** Slugs that some entry grants by name: an organization created with one would inherit the grant. */
export function grantedSlugs(grants: readonly OriginGrant[]): ReadonlySet<string> {
  return new Set(grants.flatMap((grant) => (grant.orgs === "*" ? [] : grant.orgs)));
}
