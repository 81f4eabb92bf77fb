import "server-only";
import { db, type DbOrTx } from "@/lib/db";
import { env } from "@/lib/env";
import { ApiError } from "@/lib/http/errors";
import { originsGrantedTo } from "./origin-grants-syntax";
import { assertPublicUrl, UrlNotAllowedError } from "./ssrf";

// GUICHET_PRIVATE_ORIGINS grants each private origin to named organizations
// (by slug) or to every one (`=*`). Everything that lets an admin-chosen
// destination reach loopback or a private network asks here for the calling
// organization's own list: one tenant never reaches another's private services.

/** An organization's slug never changes, so an id resolves to the same slug for the process's life. */
const slugs = new Map<string, string>();
const MAX_CACHED = 10_000;

async function slugOf(organizationId: string, tx: DbOrTx): Promise<string | null> {
  const cached = slugs.get(organizationId);
  if (cached !== undefined) return cached;
  const organization = await tx.organization.findUnique({ where: { id: organizationId }, select: { slug: true } });
  if (!organization) return null;
  if (slugs.size >= MAX_CACHED) slugs.clear();
  slugs.set(organizationId, organization.slug);
  return organization.slug;
}

/** The private origins granted to this organization: its own entries and the `=*` ones. */
export async function privateOriginsFor(organizationId: string, tx: DbOrTx = db): Promise<readonly string[]> {
  const slug = await slugOf(organizationId, tx);
  if (slug === null) return env.privateOriginGrants.filter((grant) => grant.orgs === "*").map((grant) => grant.origin);
  return originsGrantedTo(env.privateOriginGrants, slug);
}

/**
 * The rule for URLs an admin chooses (MCP servers, webhooks, model providers):
 * public addresses, and loopback or private ones only for the origins granted
 * to the organization. A refusal is `422 url_not_allowed` naming the body field.
 */
export async function assertAdminUrl(organizationId: string, url: string, field: string, tx?: DbOrTx): Promise<void> {
  const privateOrigins = await privateOriginsFor(organizationId, tx);
  try {
    await assertPublicUrl(url, { privateOrigins });
  } catch (error) {
    if (!(error instanceof UrlNotAllowedError)) throw error;
    throw new ApiError("url_not_allowed", error.message, {
      errors: [{ field, code: error.reason, message: error.message }],
    });
  }
}
