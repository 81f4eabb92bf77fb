import "server-only";
import type OpenAI from "openai";
import { StoredClientTools, StoredSchema } from "@/lib/agents/service";
import { centiToTemperature } from "@/lib/agents/temperature";
import type { Principal } from "@/lib/auth/principal";
import { db, type Prisma } from "@/lib/db";
import { ApiError, notFound } from "@/lib/http/errors";
import { modelRouteFor } from "@/lib/models/providers";
import type { RunCreateBody, RunUsage } from "@/lib/runs/schemas";
import { createRun, type RunRow } from "@/lib/runs/service";
import type { RunWarning } from "@/lib/runs/capabilities";
import { driveManagedRun, type LoopSettings } from "./loop";
import { firstRunEvent, heldEventsStored } from "./events";
import { systemMessage } from "./prompt";

// POST /v1/runs with `input`: the same run as a client-driven one (capability
// set frozen, instructions composed agent-then-call), then Guichet drives it.
// The provider is checked before anything is stored: a run that could not
// reach its model is refused, not created to fail.

const NO_USAGE: RunUsage = { input_tokens: 0, output_tokens: 0, model_calls: [] };

/**
 * The agent's settings a managed run's loop uses; `modelId` is the run's own once it has one. With
 * `activeOnly`, an inactive agent is refused before its model is looked at (a new run's first check).
 */
export async function loopSettingsFor(
  organizationId: string,
  agentId: string,
  modelId?: string | null,
  options: { activeOnly?: boolean } = {},
): Promise<{ active: boolean; settings: LoopSettings }> {
  const agent = await db.agent.findFirst({
    where: { id: agentId, organizationId },
    select: { active: true, modelId: true, temperatureCenti: true, outputSchema: true, clientTools: true },
  });
  if (!agent) throw notFound("Agent");
  if (options.activeOnly && !agent.active)
    throw new ApiError("agent_inactive", "This agent is inactive: it refuses every run.");
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

export interface PreparedRun {
  run: RunRow;
  warnings: RunWarning[];
  messages: OpenAI.Chat.ChatCompletionMessageParam[];
  settings: LoopSettings;
}

/** Everything before the loop: checks, the run stored with its opening conversation, and its `run.created` event. */
export async function prepareManagedRun(
  principal: Principal,
  body: RunCreateBody & { input: NonNullable<RunCreateBody["input"]> },
): Promise<PreparedRun> {
  const { organizationId } = principal;
  const { settings } = await loopSettingsFor(organizationId, body.agent, null, { activeOnly: true });
  const { run, warnings } = await createRun(principal, body);
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: "system", content: await systemMessage(run) },
    ...inputMessages(body.input),
  ];
  // One commit: the run as managed, with its opening conversation and usage, and its first event.
  const created = firstRunEvent(run, "run.created", {
    run: run.id,
    agent: run.agentId,
    model: settings.route.modelId,
    warnings,
  });
  const [managed] = await db.$transaction([
    db.run.update({
      where: { id: run.id },
      data: {
        modelId: settings.route.modelId,
        stream: body.stream === true,
        transcript: messages as unknown as Prisma.InputJsonArray,
        usage: NO_USAGE as unknown as Prisma.InputJsonObject,
      },
      select: { modelId: true, stream: true, usage: true },
    }),
    db.runEvent.create({ data: created }),
  ]);
  heldEventsStored(run.id, [created]);
  return { run: { ...run, ...managed }, warnings, messages, settings };
}

export async function startManagedRun(
  principal: Principal,
  body: RunCreateBody & { input: NonNullable<RunCreateBody["input"]> },
): Promise<{ run: RunRow; warnings: RunWarning[] }> {
  const { run, warnings, messages, settings } = await prepareManagedRun(principal, body);
  return { run: await driveManagedRun(run, messages, settings, { stored: true }), warnings };
}
