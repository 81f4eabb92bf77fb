import "server-only";
import { db, type DbOrTx } from "@/lib/db";
import { afterCursor, page } from "@/lib/http/validation";
import { serializeStep, stepSelect } from "./step-object";

// Each tool call of a run is a step: which tool and version, how it ended, how
// long it took, who made it, and the hash of its arguments — not the arguments.

export interface StepRecord {
  id: string;
  runId: string;
  organizationId: string;
  tool: string;
  version: number | null;
  status: "ok" | "error";
  errorCode: string | null;
  errorField: string | null;
  durationMs: number;
  argumentsSha256: string;
  retries: number;
  /** Only for runs with the debug flag: redacted arguments and the viewed result. */
  debugPayload: Record<string, unknown> | null;
  /** Who made the call: the API key or the signed-in member (the run's opener, lib/runs/driver.ts). */
  apiKeyId: string | null;
  memberId: string | null;
}

/** The step as stored: tool and field cut to their column's length. */
export function stepRow(step: StepRecord): StepRecord {
  return { ...step, tool: step.tool.slice(0, 200), errorField: step.errorField?.slice(0, 200) ?? null };
}

/** A run's steps, newest first, one page at a time. */
export async function listSteps(
  organizationId: string,
  runId: string,
  query: { limit: number; cursor?: string },
  tx: DbOrTx = db,
) {
  const rows = await tx.step.findMany({
    where: { organizationId, runId, ...afterCursor(query.cursor) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit + 1,
    select: stepSelect,
  });
  return page(rows, query.limit, serializeStep);
}
