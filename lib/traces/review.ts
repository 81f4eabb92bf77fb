import "server-only";
import { deriveMcpContract, reviewedState, type ReviewedMcpTool } from "@/lib/contracts/mcp";
import type { JsonSchema } from "@/lib/contracts/types";
import { db, type DbOrTx } from "@/lib/db";
import { log } from "@/lib/log";
import { replayCalls } from "./replay";
import type { ReplayReport } from "./schemas";

// What the connectors' review shows beside a changed tool's schema diff: the
// recorded calls of the tool checked against the contract the new version
// would get if approved as it stands — before anyone approves it.

interface ToolState {
  name: string;
  description: string;
  inputSchema: unknown;
  outputSchema: unknown;
  writesData: boolean;
  timeoutMs: number | null;
  fingerprint: string;
  reviewedFingerprint: string | null;
  reviewedSnapshot: unknown;
  reviewedAt: Date | null;
  removedAt: Date | null;
}

/** A changed tool waiting for review: its recorded calls against the candidate version; null for any other tool. */
export async function reviewReplay(
  organizationId: string,
  serverId: number,
  tool: ToolState,
  all: ToolState[],
  tx: DbOrTx = db,
): Promise<ReplayReport | null> {
  if (tool.reviewedAt === null || tool.removedAt !== null || tool.reviewedFingerprint === tool.fingerprint) return null;
  const candidate: ReviewedMcpTool = {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as JsonSchema,
    outputSchema: (tool.outputSchema as JsonSchema | null) ?? null,
    writesData: tool.writesData,
    timeoutMs: tool.timeoutMs,
  };
  const siblings = all.flatMap((other) => (other.name === tool.name ? [candidate] : (reviewedState(other) ?? [])));
  try {
    const contract = { ...deriveMcpContract(serverId, candidate, siblings), version: 0 };
    return { ...(await replayCalls(organizationId, contract, tx)), version: null };
  } catch (error) {
    // A schema that does not compile cannot be published either; the review shows the diff without a replay.
    log("warn", "review_replay_failed", { server: serverId, tool: tool.name, error: (error as Error).name });
    return null;
  }
}
