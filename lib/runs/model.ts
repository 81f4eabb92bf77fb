import { z } from "zod";
import type { Prisma } from "@/lib/db";

// The run as stored, and the facts derived from it without a database: pure,
// so the endpoint declarations (and the method table the method gate builds from
// them) never pull the database client in.

export const runSelect = {
  id: true,
  organizationId: true,
  agentId: true,
  status: true,
  capabilities: true,
  instructions: true,
  capabilitySet: true,
  warnings: true,
  fileIds: true,
  debug: true,
  trace: true,
  expiresAt: true,
  createdAt: true,
  updatedAt: true,
  modelId: true,
  metadata: true,
  output: true,
  usage: true,
  failure: true,
  requiredAction: true,
  stream: true,
  pendingApproval: true,
  transcriptPurgedAt: true,
  // Who opened the run, the only principal that may drive it (./driver.ts).
  apiKeyId: true,
  memberId: true,
  widgetId: true,
} as const;
export type RunRow = Prisma.RunGetPayload<{ select: typeof runSelect }>;

export const runStatuses = [
  "active",
  "requires_action",
  "requires_approval",
  "suspended",
  "cancelled",
  "completed",
  "failed",
  "expired",
] as const;
export type RunStatus = (typeof runStatuses)[number];
/** A run that has not ended: it may still go on (or be cancelled). */
export const liveRunStatuses = ["active", "requires_action", "requires_approval", "suspended"] as const;

export const CapabilityEntry = z.object({
  key: z.string(),
  version: z.number().int().positive(),
  effect: z.enum(["read", "write"]),
});
export type CapabilityEntry = z.infer<typeof CapabilityEntry>;
export const CapabilitySet = z.array(CapabilityEntry);

/** The status a run has now: an active run past its deadline is expired, whether or not anyone wrote it down. */
export function effectiveStatus(run: Pick<RunRow, "status" | "expiresAt">, now = new Date()): RunStatus {
  if ((liveRunStatuses as readonly string[]).includes(run.status) && run.expiresAt <= now) return "expired";
  return run.status as RunStatus;
}

export function capabilitySetOf(run: Pick<RunRow, "capabilitySet">): CapabilityEntry[] {
  return CapabilitySet.catch([]).parse(run.capabilitySet);
}

export function fileIdsOf(run: Pick<RunRow, "fileIds">): string[] {
  return z.array(z.string()).catch([]).parse(run.fileIds);
}
