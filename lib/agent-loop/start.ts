import "server-only";
import type OpenAI from "openai";
import { StoredClientTools, StoredSchema } from "@/lib/agents/service";
import { centiToTemperature } from "@/lib/agents/temperature";
import { db, provider, type Prisma } from "@/lib/db";
import { driverRows, type DriverStatement } from "@/lib/db/driver";
import { notFound } from "@/lib/http/errors";
import { modelRouteFor } from "@/lib/models/providers";
import type { RunCreateBody, RunUsage } from "@/lib/runs/schemas";
import { assertRunnable, createRun, runAgentSelect, type RunRow } from "@/lib/runs/service";
import type { RunWarning } from "@/lib/runs/capabilities";
import type { RunOpener } from "@/lib/runs/driver";
import type { LoopSettings } from "./loop";
import { firstRunEvent, heldEventsStored } from "./events";
import { failUnopened, injectedFault } from "./run-state";
import { takenLease } from "./lease";
import { systemMessage } from "./prompt";
import { storeOpening } from "./store";

// POST /v1/runs with `input`: the same run as a client-driven one (capability
// set frozen, instructions composed agent-then-call), then Guichet drives it.
// The provider is checked before anything is stored: a run that could not
// reach its model is refused, not created to fail.

const NO_USAGE: RunUsage = { input_tokens: 0, output_tokens: 0, model_calls: [] };

/** What a managed run's loop takes from its agent. */
const loopAgentSelect = {
  active: true,
  modelId: true,
  temperatureCenti: true,
  outputSchema: true,
  clientTools: true,
} as const;

async function settingsOf(
  organizationId: string,
  agent: Prisma.AgentGetPayload<{ select: typeof loopAgentSelect }>,
  modelId: string | null,
): Promise<LoopSettings> {
  return {
    route: await modelRouteFor(organizationId, modelId ?? agent.modelId),
    temperature: centiToTemperature(agent.temperatureCenti),
    outputSchema: StoredSchema.parse(agent.outputSchema),
    clientTools: StoredClientTools.parse(agent.clientTools),
  };
}

/** The agent's settings a resumed run's loop uses, with the run's own model. */
export async function loopSettingsFor(
  organizationId: string,
  agentId: string,
  modelId: string | null,
): Promise<LoopSettings> {
  const agent = await db.agent.findFirst({ where: { id: agentId, organizationId }, select: loopAgentSelect });
  if (!agent) throw notFound("Agent");
  return settingsOf(organizationId, agent, modelId);
}

const openerAgentSelect = { ...runAgentSelect, ...loopAgentSelect } as const;
type OpenerAgent = Prisma.AgentGetPayload<{ select: typeof openerAgentSelect }>;

/** The agent as a managed run's opening reads it, in one statement on the driver (else through Prisma). */
async function openerAgent(organizationId: string, agentId: string): Promise<OpenerAgent | null> {
  const rows = await driverRows<Omit<OpenerAgent, "_count"> & { documents: number }>({
    sql: `SELECT a."id", a."active", a."instructions", a."tools", a."trace", a."modelId", a."temperatureCenti",
        a."outputSchema", a."clientTools",
        CAST((SELECT COUNT(*) FROM "File" f WHERE f."agentId" = a."id") AS INTEGER) AS "documents"
      FROM "Agent" a WHERE a."id" = $1 AND a."organizationId" = $2`,
    values: [agentId, organizationId],
  });
  if (!rows) return db.agent.findFirst({ where: { id: agentId, organizationId }, select: openerAgentSelect });
  if (!rows[0]) return null;
  const { documents, ...agent } = rows[0];
  return { ...agent, _count: { documents } };
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

/**
 * Everything before the loop: checks, the run stored with its opening conversation, and its `run.created`
 * event. `alongside` gives statements of the opener's that commit in the same transaction as the opening
 * (a widget stores its visitor's message there): none is written if the run cannot open.
 */
export async function prepareManagedRun(
  principal: RunOpener,
  body: RunCreateBody & { input: NonNullable<RunCreateBody["input"]> },
  alongside?: (run: RunRow) => DriverStatement[],
): Promise<PreparedRun> {
  const { organizationId } = principal;
  // One read of the agent for the run and its loop; an inactive agent is refused before its model is looked at.
  const agent = await openerAgent(organizationId, body.agent);
  assertRunnable(agent);
  const settings = await settingsOf(organizationId, agent, null);
  const { run, warnings } = await createRun(principal, body, { agent });
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: "system", content: await systemMessage(run, { documents: agent._count.documents > 0 }) },
    ...inputMessages(body.input),
  ];
  // One commit: the run as managed, with its opening conversation and usage, and its first event.
  const created = firstRunEvent(run, "run.created", {
    run: run.id,
    agent: run.agentId,
    model: settings.route.modelId,
    warnings,
  });
  const opening = {
    modelId: settings.route.modelId,
    stream: body.stream === true,
    transcript: messages as unknown as Prisma.InputJsonArray,
    usage: NO_USAGE as unknown as Prisma.InputJsonObject,
    // This instance executes the run from now on (./lease.ts); its loop starts right after.
    ...takenLease(),
  };
  const extra = alongside?.(run) ?? [];
  try {
    await injectedFault(run, "opening_error");
    if (!(await storeOpening(run, opening, created, extra)))
      await db.$transaction([
        db.run.update({ where: { id: run.id }, data: opening, select: { id: true } }),
        db.runEvent.create({ data: created }),
        // A driver statement's `$1`, `$2`… appear once each and in order: SQLite takes them as `?`.
        ...extra.map((s) =>
          db.$executeRawUnsafe(provider === "sqlite" ? s.sql.replace(/\$\d+/g, "?") : s.sql, ...s.values),
        ),
      ]);
  } catch (error) {
    // The opening was refused (the database away, or the opener's statements refused with it: a widget's
    // conversation deleted meanwhile…): the run, stored but never opened, ends failed at once.
    await failUnopened(run).catch(() => undefined);
    throw error;
  }
  heldEventsStored(run.id, [created]);
  const { modelId, stream } = opening;
  return {
    run: { ...run, modelId, stream, usage: NO_USAGE as unknown as RunRow["usage"] },
    warnings,
    messages,
    settings,
  };
}
