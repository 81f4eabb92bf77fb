import "server-only";
import type OpenAI from "openai";
import { z } from "zod";
import { db, Prisma } from "@/lib/db";
import { ApiError, type FieldError } from "@/lib/http/errors";
import { assertDrives, type RunDriver } from "@/lib/runs/driver";
import { RequiredAction, type ToolOutputsBody } from "@/lib/runs/schemas";
import { effectiveStatus, getRun, type RunRow } from "@/lib/runs/service";
import { emitRunEvent } from "./events";
import { takenLease } from "./lease";
import { driveManagedRun } from "./loop";
import { loopSettingsFor } from "./start";

// POST /v1/runs/{run}/tool_outputs: the API client answers the client tool
// calls its run waits for, and the run goes on. The state is the database's:
// the pending calls and the transcript are stored, so any instance resumes a
// run, after a restart too, and only the one whose conditional update moves
// the run out of `requires_action` does — a second post (or instance) is refused.

function outputsRefusal(pending: RequiredAction["tool_calls"], body: ToolOutputsBody): FieldError[] {
  const expected = new Set(pending.map((call) => call.id));
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  body.tool_outputs.forEach(({ tool_call_id: id }, index) => {
    const field = `tool_outputs[${index}].tool_call_id`;
    if (!expected.has(id))
      errors.push({ field, code: "unknown_tool_call", message: `The run waits for no tool call ${id}.` });
    else if (seen.has(id)) errors.push({ field, code: "duplicate_tool_call", message: `${id} is answered twice.` });
    seen.add(id);
  });
  const missing = [...expected].filter((id) => !seen.has(id));
  if (missing.length)
    errors.push({
      field: "tool_outputs",
      code: "missing_tool_outputs",
      message: `Every pending call needs its output; missing: ${missing.join(", ")}.`,
    });
  return errors;
}

export async function submitToolOutputs(
  organizationId: string,
  runId: string,
  body: ToolOutputsBody,
  driver: RunDriver,
): Promise<RunRow> {
  const run = await getRun(organizationId, runId);
  assertDrives(run, driver);
  const status = effectiveStatus(run);
  if (status !== "requires_action")
    throw new ApiError("run_not_waiting", `This run is ${status}: it waits for no tool output.`, {
      reason: { status },
    });
  if (!run.agentId) throw new ApiError("agent_deleted", "The agent of this run was deleted: the run cannot go on.");
  const pending = RequiredAction.parse(run.requiredAction).tool_calls;
  const errors = outputsRefusal(pending, body);
  if (errors.length) throw new ApiError("invalid_parameter", errors[0].message, { errors });
  // Checked before the run is claimed: a provider removed meanwhile leaves the run waiting, not stuck.
  const settings = await loopSettingsFor(organizationId, run.agentId, run.modelId);
  const stored = await db.run.findFirst({ where: { id: run.id, organizationId }, select: { transcript: true } });
  const messages = z
    .array(z.custom<OpenAI.Chat.ChatCompletionMessageParam>((value) => typeof value === "object" && value !== null))
    .parse(stored?.transcript ?? []);
  // The client's outputs go back in the order the model asked; like any tool result, they are data, not instructions.
  for (const call of pending) {
    const output = body.tool_outputs.find((entry) => entry.tool_call_id === call.id)!.output;
    messages.push({
      role: "tool",
      tool_call_id: call.id,
      content: JSON.stringify({ untrusted_content: { ok: true, result: output } }),
    });
  }
  const claimed = await db.run.updateMany({
    where: { id: run.id, organizationId, status: "requires_action", expiresAt: { gt: new Date() } },
    data: {
      status: "active",
      requiredAction: Prisma.DbNull,
      transcript: messages as unknown as Prisma.InputJsonArray,
      ...takenLease(),
    },
  });
  if (claimed.count === 0)
    throw new ApiError("run_not_waiting", "This run was resumed by another request: it waits for no tool output.", {
      reason: { status: effectiveStatus(await getRun(organizationId, runId)) },
    });
  for (const call of pending)
    await emitRunEvent(run, "tool_call.completed", {
      tool_call_id: call.id,
      tool: call.name,
      status: "ok",
      error_code: null,
      duration_ms: null,
      step: null,
      proposal: null,
    });
  return driveManagedRun({ ...run, status: "active", requiredAction: null }, messages, settings, { stored: true });
}
