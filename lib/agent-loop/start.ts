import "server-only";
import type OpenAI from "openai";
import { StoredClientTools, StoredSchema } from "@/lib/agents/service";
import { centiToTemperature } from "@/lib/agents/temperature";
import type { Principal } from "@/lib/auth/principal";
import { db, type Prisma } from "@/lib/db";
import { ApiError, notFound } from "@/lib/http/errors";
import { modelRouteFor } from "@/lib/models/providers";
import type { RunCreateBody } from "@/lib/runs/schemas";
import { createRun, type RunRow } from "@/lib/runs/service";
import type { RunWarning } from "@/lib/runs/capabilities";
import { driveManagedRun, type LoopSettings } from "./loop";
import { systemMessage } from "./prompt";

// POST /v1/runs with `input`: the same run as a client-driven one (capability
// set frozen, instructions composed agent-then-call), then Guichet drives it.
// The provider is checked before anything is stored: a run that could not
// reach its model is refused, not created to fail.

/** The agent's settings a managed run's loop uses; `modelId` is the run's own once it has one. */
export async function loopSettingsFor(
  organizationId: string,
  agentId: string,
  modelId?: string | null,
): Promise<{ active: boolean; settings: LoopSettings }> {
  const agent = await db.agent.findFirst({
    where: { id: agentId, organizationId },
    select: { active: true, modelId: true, temperatureCenti: true, outputSchema: true, clientTools: true },
  });
  if (!agent) throw notFound("Agent");
  const route = await modelRouteFor(organizationId, modelId ?? agent.modelId);
  return {
    active: agent.active,
    settings: {
      route,
      temperature: centiToTemperature(agent.temperatureCenti),
      outputSchema: StoredSchema.parse(agent.outputSchema),
      clientTools: StoredClientTools.parse(agent.clientTools),
    },
  };
}

function inputMessages(input: NonNullable<RunCreateBody["input"]>): OpenAI.Chat.ChatCompletionMessageParam[] {
  return typeof input === "string"
    ? [{ role: "user", content: input }]
    : input.map((message) => ({ role: message.role, content: message.content }));
}

export async function startManagedRun(
  principal: Principal,
  body: RunCreateBody & { input: NonNullable<RunCreateBody["input"]> },
): Promise<{ run: RunRow; warnings: RunWarning[] }> {
  const { organizationId } = principal;
  const agent = await db.agent.findFirst({ where: { id: body.agent, organizationId }, select: { active: true } });
  if (!agent) throw notFound("Agent");
  if (!agent.active) throw new ApiError("agent_inactive", "This agent is inactive: it refuses every run.");
  const { settings } = await loopSettingsFor(organizationId, body.agent);
  const { run, warnings } = await createRun(principal, body);
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: "system", content: await systemMessage(run) },
    ...inputMessages(body.input),
  ];
  const managed = await db.run.update({
    where: { id: run.id },
    data: { modelId: settings.route.modelId, transcript: messages as unknown as Prisma.InputJsonArray },
    select: { modelId: true },
  });
  return { run: await driveManagedRun({ ...run, modelId: managed.modelId }, messages, settings), warnings };
}
