import "server-only";
import { isManager } from "@/lib/auth/scopes";
import { auditStatement, recordAudit, type AuditActor } from "@/lib/audit/record";
import { agentSelect, createOnDriver, quotaExceeded, updateOnDriver, updateStatementPg, type AgentRow } from "./store";
export type { AgentRow } from "./store";
import { z } from "zod";
import type { Principal } from "@/lib/auth/principal";
import { reason } from "@/lib/catalog/reasons";
import { catalogIndex, unavailabilityForConnectedMember, type CatalogEntry } from "@/lib/catalog/service";
import { db, isUniqueViolation, Prisma, provider, type DbOrTx } from "@/lib/db";
import { driverRows, driverTransaction, findFirstOnDriver, isDriverUniqueViolation } from "@/lib/db/driver";
import { lockOrganization } from "@/lib/files/quota";
import { removeStoredBytes } from "@/lib/files/storage";
import { ApiError, notFound, type FieldError } from "@/lib/http/errors";
import { newId } from "@/lib/ids";
import { afterCursor, page, type ListQuery } from "@/lib/http/validation";
import { modelsForOrganization } from "@/lib/models/service";
import { isoOffset } from "@/lib/time";
import { ClientToolDefinition, type AgentCreateBody, type AgentObject, type AgentUpdateBody } from "./api";
import { jsonSchemaProblem } from "./json-schema";
import { centiToTemperature, DEFAULT_TEMPERATURE_CENTI, temperatureToCenti } from "./temperature";
import { assertToolsAddable, normalizeTools, unavailableTools } from "./tools";

const StoredTools = z.array(z.string()).catch([]);
export const StoredClientTools = z.array(ClientToolDefinition).catch([]);
export const StoredSchema = z.record(z.string(), z.unknown()).nullable().catch(null);

export function serializeAgent(agent: AgentRow, catalog: Map<string, CatalogEntry>): AgentObject {
  const tools = StoredTools.parse(agent.tools);
  return {
    id: agent.id,
    name: agent.name,
    instructions: agent.instructions,
    model: agent.modelId,
    temperature: centiToTemperature(agent.temperatureCenti),
    tools,
    active: agent.active,
    output_schema: StoredSchema.parse(agent.outputSchema),
    client_tools: StoredClientTools.parse(agent.clientTools),
    trace: agent.trace === "redacted" ? "redacted" : "off",
    unavailable_tools: unavailableTools(tools, catalog),
    created_at: isoOffset(agent.createdAt),
    updated_at: isoOffset(agent.updatedAt),
  };
}

/** Tracing keeps a copy (redacted) of what runs see: only a signed-in owner or admin turns it on or off. */
export function assertMayChangeTrace(principal: Principal, body: AgentUpdateBody): void {
  if (body.trace === undefined) return;
  if (principal.kind === "member" && isManager(principal.role)) return;
  throw new ApiError("forbidden", "Only an owner or an admin, signed in, may change an agent's trace setting.", {
    errors: [{ field: "trace", code: "forbidden", message: "Only an owner or an admin may change this." }],
  });
}

const nameTaken = (name: string) =>
  new ApiError("agent_name_taken", `An agent named "${name}" already exists in this organization.`, {
    errors: [{ field: "name", code: "agent_name_taken", message: `An agent named "${name}" already exists.` }],
  });

async function findAgent(organizationId: string, agentId: string, tx: DbOrTx = db): Promise<AgentRow> {
  // GET /v1/agents/{agent} reads it on the driver outside a transaction (lib/db/driver.ts).
  const where = { id: agentId, organizationId };
  const viaPrisma = () => tx.agent.findFirst({ where, select: agentSelect });
  const agent = tx === db ? await findFirstOnDriver("Agent", agentSelect, where, viaPrisma) : await viaPrisma();
  if (!agent) throw notFound("Agent");
  return agent;
}

/** Schemas that do not compile and client tool names that are repeated or taken by the catalog. */
function schemaProblems(body: AgentUpdateBody, catalog: Map<string, CatalogEntry>): FieldError[] {
  const problems: FieldError[] = [];
  if (body.output_schema) {
    const problem = jsonSchemaProblem(body.output_schema);
    if (problem) problems.push({ field: "output_schema", code: "invalid_json_schema", message: problem });
  }
  const names = new Set<string>();
  (body.client_tools ?? []).forEach((tool, index) => {
    if (names.has(tool.name))
      problems.push({
        field: `client_tools[${index}].name`,
        code: "duplicate",
        message: `Client tool names must be unique: ${tool.name} is repeated.`,
      });
    else if (catalog.has(tool.name))
      problems.push({
        field: `client_tools[${index}].name`,
        code: "reserved_name",
        message: `${tool.name} is a catalog tool; give the client tool another name.`,
      });
    names.add(tool.name);
    const problem = jsonSchemaProblem(tool.parameters);
    if (problem)
      problems.push({ field: `client_tools[${index}].parameters`, code: "invalid_json_schema", message: problem });
  });
  return problems;
}

/**
 * The model rule: a model that is sent and differs from the saved one must be in
 * the plan (a saved model the plan no longer includes is kept, like tools). An
 * output schema needs a model with structured output — checked when the schema
 * or the model is sent, so a PATCH touching neither cannot fail because of it.
 */
async function resolveModel(
  organizationId: string,
  body: AgentUpdateBody,
  saved: AgentRow | null,
  tx: DbOrTx,
): Promise<string | null> {
  const modelId = body.model === undefined ? (saved?.modelId ?? null) : body.model;
  if (body.model === undefined && body.output_schema === undefined) return modelId;
  const planModels = await modelsForOrganization(organizationId, tx);
  if (body.model && body.model !== saved?.modelId && !planModels.some((m) => m.id === body.model)) {
    const message = `The model ${body.model} is not in your plan; see GET /v1/models.`;
    throw new ApiError("model_unavailable", message, {
      errors: [{ field: "model", code: "model_unavailable", message }],
    });
  }
  const outputSchema = body.output_schema === undefined ? saved?.outputSchema : body.output_schema;
  if (outputSchema && (body.output_schema !== undefined || body.model !== undefined)) {
    const model =
      modelId === null
        ? planModels.find((m) => m.isDefault)
        : (planModels.find((m) => m.id === modelId) ??
          (await tx.model.findUnique({ where: { id: modelId }, select: { name: true, structuredOutput: true } })));
    if (!model?.structuredOutput) {
      const field = body.output_schema !== undefined ? "output_schema" : "model";
      const message = `${model?.name ?? "This model"} does not guarantee structured output; remove output_schema or choose a model with structured_output.`;
      throw new ApiError("output_schema_unsupported", message, {
        errors: [{ field, code: "output_schema_unsupported", message }],
        reason: { model: modelId },
      });
    }
  }
  return modelId;
}

/** Every check of the seed's field table, then the data to write. */
async function agentData(organizationId: string, body: AgentUpdateBody, saved: AgentRow | null, tx: DbOrTx) {
  const catalog = await catalogIndex(organizationId, tx);
  const problems = schemaProblems(body, catalog);
  if (problems.length) {
    throw new ApiError(
      "invalid_parameter",
      problems.length === 1 ? problems[0].message : "Some parameters are invalid.",
      { errors: problems },
    );
  }
  const tools = body.tools === undefined ? undefined : normalizeTools(body.tools);
  if (tools)
    assertToolsAddable(tools, saved ? StoredTools.parse(saved.tools) : [], catalog, (entry) => {
      const code = unavailabilityForConnectedMember(entry);
      return code === undefined ? undefined : code === null ? null : reason(code);
    });
  if (body.name !== undefined && body.name !== saved?.name) {
    const where = { organizationId, name: body.name };
    const viaPrisma = () => tx.agent.findFirst({ where, select: { id: true } });
    const clash = tx === db ? await findFirstOnDriver("Agent", { id: true }, where, viaPrisma) : await viaPrisma();
    if (clash) throw nameTaken(body.name);
  }
  const modelId = await resolveModel(organizationId, body, saved, tx);
  const data = {
    ...(body.name !== undefined && { name: body.name }),
    ...(body.instructions !== undefined && { instructions: body.instructions }),
    ...(body.model !== undefined && { modelId }),
    ...(body.temperature !== undefined && { temperatureCenti: temperatureToCenti(body.temperature) }),
    ...(tools && { tools: tools.map((t) => t.key) }),
    ...(body.active !== undefined && { active: body.active }),
    ...(body.output_schema !== undefined && {
      outputSchema: body.output_schema === null ? Prisma.DbNull : (body.output_schema as Prisma.InputJsonValue),
    }),
    ...(body.client_tools !== undefined && { clientTools: (body.client_tools ?? []) as Prisma.InputJsonValue }),
    ...(body.trace !== undefined && { trace: body.trace }),
  };
  return { data, catalog };
}

export async function listAgents(organizationId: string, query: ListQuery) {
  const [rows, catalog] = await Promise.all([
    db.agent.findMany({
      where: { AND: [{ organizationId }, afterCursor(query.cursor)] },
      select: agentSelect,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: query.limit + 1,
    }),
    catalogIndex(organizationId),
  ]);
  return page(rows, query.limit, (row) => serializeAgent(row, catalog));
}

export async function getAgent(organizationId: string, agentId: string): Promise<AgentObject> {
  const [agent, catalog] = await Promise.all([findAgent(organizationId, agentId), catalogIndex(organizationId)]);
  return serializeAgent(agent, catalog);
}

export async function createAgent(
  organizationId: string,
  body: AgentCreateBody,
  actor: AuditActor,
): Promise<AgentObject> {
  const { data, catalog } = await agentData(organizationId, body, null, db);
  const now = new Date();
  const fields: AgentRow = {
    id: newId("agt"),
    name: body.name,
    instructions: null,
    modelId: null,
    temperatureCenti: DEFAULT_TEMPERATURE_CENTI,
    tools: [],
    active: true,
    outputSchema: null,
    clientTools: [],
    trace: "off",
    createdAt: now,
    updatedAt: now,
    ...(data as Partial<AgentRow>),
  };
  if (data.outputSchema === Prisma.DbNull) fields.outputSchema = null;
  // Which fields were given, never their values (instructions are the customer's own text).
  const audited = (agent: { id: string; name: string }) => ({
    organizationId,
    actor,
    action: "agent.created" as const,
    target: { type: "agent", id: agent.id },
    details: { name: agent.name, fields: Object.keys(body) },
  });
  try {
    const written = await driverTransaction(() =>
      createOnDriver(organizationId, fields, (row) => auditStatement(audited(row), now)),
    );
    if (written) return serializeAgent(written, catalog);
    const agent = await db.$transaction(async (tx) => {
      await lockOrganization(tx, organizationId);
      const organization = await tx.organization.findUniqueOrThrow({
        where: { id: organizationId },
        select: { plan: { select: { maxAgents: true } } },
      });
      const count = await tx.agent.count({ where: { organizationId } });
      if (count >= organization.plan.maxAgents) throw quotaExceeded(organization.plan.maxAgents);
      const { createdAt: _createdAt, updatedAt: _updatedAt, ...rest } = fields;
      const agent = await tx.agent.create({
        data: {
          ...rest,
          organizationId,
          outputSchema: fields.outputSchema === null ? Prisma.DbNull : (fields.outputSchema as Prisma.InputJsonValue),
          tools: fields.tools as Prisma.InputJsonValue,
          clientTools: fields.clientTools as Prisma.InputJsonValue,
        },
        select: agentSelect,
      });
      await recordAudit(audited(agent), tx);
      return agent;
    });
    return serializeAgent(agent, catalog);
  } catch (error) {
    if (isUniqueViolation(error) || isDriverUniqueViolation(error)) throw nameTaken(body.name);
    throw error;
  }
}

export async function updateAgent(
  organizationId: string,
  agentId: string,
  body: AgentUpdateBody,
  actor: AuditActor,
): Promise<AgentObject> {
  const saved = await findAgent(organizationId, agentId);
  const { data, catalog } = await agentData(organizationId, body, saved, db);
  if (Object.keys(data).length === 0) return serializeAgent(saved, catalog);
  const audited = (agent: { name: string }) => ({
    organizationId,
    actor,
    action: "agent.updated" as const,
    target: { type: "agent", id: saved.id },
    details: { name: agent.name, fields: Object.keys(body) },
  });
  try {
    const now = new Date();
    const written =
      provider === "postgresql"
        ? await driverRows<AgentRow>(updateStatementPg(saved.id, data, now, auditStatement(audited(saved), now))).then(
            (rows) => (rows && rows.length === 0 ? Promise.reject(notFound("Agent")) : (rows?.[0] ?? null)),
          )
        : await driverTransaction(() =>
            updateOnDriver(saved.id, data, now, (row) => auditStatement(audited(row), now)),
          );
    if (written) return serializeAgent(written, catalog);
    const agent = await db.$transaction(async (tx) => {
      const agent = await tx.agent.update({ where: { id: saved.id }, data, select: agentSelect });
      await recordAudit(audited(agent), tx);
      return agent;
    });
    return serializeAgent(agent, catalog);
  } catch (error) {
    if ((isUniqueViolation(error) || isDriverUniqueViolation(error)) && body.name !== undefined)
      throw nameTaken(body.name);
    throw error;
  }
}

/**
 * Deletes the agent, its documents' rows (cascade) and then their bytes. Its
 * runs and their steps stay (the database sets their agent to null): they are
 * the record of what the agent did, and the dispatcher refuses their calls.
 */
export async function deleteAgent(organizationId: string, agentId: string, actor: AuditActor): Promise<void> {
  const keys = await db.$transaction(async (tx) => {
    // The lock keeps a document upload from landing between the listing and the delete.
    await lockOrganization(tx, organizationId);
    const agent = await findAgent(organizationId, agentId, tx);
    const documents = await tx.file.findMany({ where: { agentId: agent.id }, select: { storageKey: true } });
    await tx.agent.delete({ where: { id: agent.id } });
    await recordAudit(
      {
        organizationId,
        actor,
        action: "agent.deleted",
        target: { type: "agent", id: agent.id },
        details: { name: agent.name },
      },
      tx,
    );
    return documents.map((d) => d.storageKey);
  });
  await removeStoredBytes(keys);
}

/** 404 unless the agent belongs to the organization; for the documents routes. */
export async function assertAgentExists(organizationId: string, agentId: string): Promise<void> {
  await findAgent(organizationId, agentId);
}
