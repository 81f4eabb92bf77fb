import "server-only";
import { db, type Prisma } from "@/lib/db";
import { ApiError } from "@/lib/http/errors";
import { afterCursor, encodeCursor } from "@/lib/http/validation";
import { proposalInclude, statusFilter, type ProposalRow } from "./service";
import type { ProposalStatus } from "./state";

// Listing proposals: newest first (the API default, with the shared cursor) or
// soonest expiry first (the approval inbox), with its own keyset cursor.

export interface ProposalListQuery {
  limit: number;
  cursor?: string;
  status?: ProposalStatus[];
  run?: string;
  order: "created_desc" | "expires_asc";
}

function encodeExpiryCursor(row: { expiresAt: Date; id: string }): string {
  return Buffer.from(JSON.stringify(["e", row.expiresAt.toISOString(), row.id])).toString("base64url");
}

function afterExpiryCursor(cursor: string | undefined): Prisma.ProposalWhereInput {
  if (!cursor) return {};
  try {
    const [tag, at, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [string, string, string];
    const expiresAt = new Date(at);
    if (tag !== "e" || Number.isNaN(expiresAt.getTime()) || typeof id !== "string") throw new Error("bad cursor");
    return { OR: [{ expiresAt: { gt: expiresAt } }, { expiresAt, id: { gt: id } }] };
  } catch {
    throw new ApiError("invalid_parameter", "Invalid cursor.", {
      errors: [{ field: "cursor", code: "invalid_value", message: "Invalid cursor." }],
    });
  }
}

export async function listProposals(
  organizationId: string,
  query: ProposalListQuery,
  now = new Date(),
): Promise<{ rows: ProposalRow[]; nextCursor: string | null }> {
  const byExpiry = query.order === "expires_asc";
  const where: Prisma.ProposalWhereInput = {
    AND: [
      { organizationId },
      query.run ? { runId: query.run } : {},
      query.status?.length ? statusFilter(query.status, now) : {},
      byExpiry ? afterExpiryCursor(query.cursor) : afterCursor(query.cursor),
    ],
  };
  const rows = await db.proposal.findMany({
    where,
    orderBy: byExpiry ? [{ expiresAt: "asc" }, { id: "asc" }] : [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit + 1,
    include: proposalInclude,
  });
  const more = rows.length > query.limit;
  const kept = more ? rows.slice(0, query.limit) : rows;
  const last = kept[kept.length - 1];
  const nextCursor = more && last ? (byExpiry ? encodeExpiryCursor(last) : encodeCursor(last)) : null;
  return { rows: kept, nextCursor };
}

/** How many proposals wait for a decision, for the navigation badge. */
export async function countPending(organizationId: string, now = new Date()): Promise<number> {
  return db.proposal.count({ where: { organizationId, status: "pending", expiresAt: { gt: now } } });
}
