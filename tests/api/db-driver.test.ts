import { beforeAll, describe, expect, it, vi } from "vitest";
import { createAgent, createRun } from "./dispatch-fixtures";
import { arrangePlan } from "./agents-helpers";
import { createTenant, testDb, type Tenant } from "./helpers";

// The hot statements read rows on the driver under Prisma (lib/db/driver.ts):
// every value must come back as Prisma gives it — JSON parsed, booleans,
// dates, integers as numbers — on SQLite and on PostgreSQL alike.

describe("rows read on the driver", () => {
  let tenant: Tenant;
  let agentId: string;
  let runId: string;

  beforeAll(async () => {
    tenant = await createTenant();
    const agent = await createAgent(tenant, {
      instructions: "Calcule.",
      tools: ["calculate"],
      output_schema: { type: "object", properties: { total: { type: "number" } } },
    });
    agentId = agent.id;
    runId = (await createRun(tenant, { agent: agentId, metadata: { ticket: "T-1" }, debug: true })).run.id;
    const db = await testDb();
    // A few nullable JSON and date fields filled in, so that each kind is compared with a value.
    await db.run.update({
      where: { id: runId },
      data: { usage: { input_tokens: 12, model_calls: [{ duration_ms: 3 }] }, transcriptPurgedAt: new Date() },
    });
  });

  it("gives a run exactly as Prisma's findFirst does", async () => {
    const db = await testDb();
    const { getRun, runSelect } = await import("@/lib/runs/service");
    const { driverRows } = await import("@/lib/db/driver");
    const expected = await db.run.findFirst({
      where: { id: runId, organizationId: tenant.organizationId },
      select: runSelect,
    });
    // Prisma has connected by now: getRun reads on the driver.
    expect(await driverRows({ sql: `SELECT 1 AS "one"`, values: [] })).toEqual([{ one: 1 }]);
    expect(await getRun(tenant.organizationId, runId)).toStrictEqual(expected);
    await expect(getRun(tenant.organizationId, "run_00000000000000000000000000")).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("gives an organization's provider row as Prisma's findUnique does", async () => {
    const db = await testDb();
    const { organizationProvider, providerSelect } = await import("@/lib/models/providers");
    await db.modelProvider.create({
      data: {
        organizationId: tenant.organizationId,
        provider: "mistral",
        baseUrl: "https://llm.example/v1",
        apiKeyCiphertext: "v1:not-a-real-ciphertext",
        apiKeyHint: "9876",
      },
    });
    const expected = await db.modelProvider.findUnique({
      where: { organizationId_provider: { organizationId: tenant.organizationId, provider: "mistral" } },
      select: providerSelect,
    });
    expect(expected).not.toBeNull();
    expect(await organizationProvider(tenant.organizationId, "mistral")).toStrictEqual(expected);
    expect(await organizationProvider(tenant.organizationId, "anthropic")).toBeNull();
  });

  it("gives an MCP session's run as Prisma's findFirst does", async () => {
    const db = await testDb();
    const { findSession, sessionHash } = await import("@/lib/mcp-server/session");
    const { runSelect } = await import("@/lib/runs/service");
    const sessionRun = (await createRun(tenant, { agent: agentId })).run.id as string;
    const seenAt = new Date();
    await db.run.update({
      where: { id: sessionRun },
      data: { source: "mcp", mcpSessionHash: sessionHash("session-parity"), mcpSeenAt: seenAt },
    });
    const expected = await db.run.findFirst({ where: { id: sessionRun }, select: runSelect });
    const opener = { apiKeyId: expected!.apiKeyId, memberId: expected!.memberId };
    expect(await findSession(tenant.organizationId, agentId, "session-parity", opener, seenAt)).toStrictEqual(expected);
    expect(await findSession(tenant.organizationId, agentId, "another-session", opener, seenAt)).toBeNull();
  });

  it("gives every column of an agent as Prisma does", async () => {
    const db = await testDb();
    const { driverRows } = await import("@/lib/db/driver");
    const expected = await db.agent.findUniqueOrThrow({ where: { id: agentId } });
    const rows = await driverRows<Record<string, unknown>>({
      sql: `SELECT * FROM "Agent" WHERE "id" = $1 AND "organizationId" = $2`,
      values: [agentId, tenant.organizationId],
    });
    expect(rows).toHaveLength(1);
    expect({ ...rows![0] }).toStrictEqual({ ...expected });
  });
});

describe("records written on the driver", () => {
  it("commit a tool call's record visibly at once, without waiting for the disk on PostgreSQL", async () => {
    const tenant = await createTenant();
    const db = await testDb();
    const { recordWrite } = await import("@/lib/db/driver");
    const { provider } = await import("@/lib/db");
    await db.organization.findFirst(); // Prisma connects: the driver is captured.
    const bucket = new Date("2026-01-01T00:00:00.000Z");
    // On PostgreSQL the row is written only if the connection has synchronous_commit off.
    const relaxed = provider === "postgresql" ? `WHERE current_setting('synchronous_commit') = 'off'` : "";
    const written = await recordWrite([
      {
        sql: `INSERT INTO "TelemetryCounter" ("organizationId", "bucket", "metric", "count")
          SELECT $1, $2, 'call', 1 ${relaxed}`,
        values: [tenant.organizationId, bucket],
      },
    ]);
    expect(written).toBe(true);
    const rows = await db.telemetryCounter.findMany({ where: { organizationId: tenant.organizationId } });
    expect(rows).toEqual([expect.objectContaining({ metric: "call", count: 1, bucket })]);
  });
});

describe("a managed run's writes on the driver", () => {
  it("store as JSON text exactly the Run columns the schema declares Json (a run's creation too)", async () => {
    const { readFileSync } = await import("node:fs");
    const { RUN_JSON_COLUMNS } = await import("@/lib/runs/service");
    const schema = readFileSync("prisma/schema.base.prisma", "utf8");
    const model = /^model Run \{([\s\S]*?)^\}/m.exec(schema)![1];
    const declared = [...model.matchAll(/^\s+(\w+)\s+Json\??(\s|$)/gm)].map((match) => match[1]);
    expect(declared.length).toBeGreaterThan(5);
    expect([...RUN_JSON_COLUMNS].sort()).toEqual(declared.sort());
  });
});

describe("a transaction on SQLite's connection", () => {
  it("keeps nothing when its work throws or hands the write back to Prisma", async () => {
    const { provider } = await import("@/lib/db");
    const tenant = await createTenant();
    const db = await testDb();
    const { sqliteTransaction, USE_PRISMA } = await import("@/lib/db/driver");
    await db.organization.findFirst(); // Prisma connects: the driver is captured.
    if (provider !== "sqlite") {
      // PostgreSQL has no such transaction: nothing runs, and the callers use Prisma.
      expect(sqliteTransaction(() => expect.unreachable())).toBeNull();
      return;
    }
    const insert = (metric: string) => ({
      sql: `INSERT INTO "TelemetryCounter" ("organizationId", "bucket", "metric", "count") VALUES ($1, $2, $3, 1)`,
      values: [tenant.organizationId, new Date("2026-01-01T00:00:00.000Z"), metric],
    });
    expect(() =>
      sqliteTransaction((tx) => {
        tx.run(insert("thrown"));
        throw new Error("refused");
      }),
    ).toThrow("refused");
    expect(
      sqliteTransaction((tx) => {
        tx.run(insert("handed_back"));
        return USE_PRISMA;
      }),
    ).toBeNull();
    expect(sqliteTransaction((tx) => tx.run(insert("kept")))).toBe(1);
    const rows = await db.telemetryCounter.findMany({ where: { organizationId: tenant.organizationId } });
    expect(rows.map((row) => row.metric)).toEqual(["kept"]);
  });
});

describe("agents written on the driver", () => {
  /** Each stored value's kind and shape (digits blanked; PostgreSQL's text drops a fraction's trailing zeros), so rows written at other instants compare. */
  async function storedShape(ids: string[]) {
    const { driverRows } = await import("@/lib/db/driver");
    const rows = await driverRows<Record<string, unknown>>({
      sql: `SELECT CAST("tools" AS TEXT) AS "tools", CAST("clientTools" AS TEXT) AS "clientTools",
        CAST("outputSchema" AS TEXT) AS "outputSchema", CAST("createdAt" AS TEXT) AS "createdAt",
        CAST("updatedAt" AS TEXT) AS "updatedAt", CAST("active" AS TEXT) AS "active", "trace", "temperatureCenti"
        FROM "Agent" WHERE "id" IN ($1, $2) ORDER BY "name"`,
      values: ids,
    });
    return rows!.map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([k, v]) => [
          k,
          typeof v === "string" ? v.replace(/\d/g, "0").replace(/\.0+/, ".0") : v,
        ]),
      ),
    );
  }

  it("store the rows Prisma stores, answer what Prisma reads back, and keep the quota", async () => {
    const tenant = await createTenant();
    const db = await testDb();
    const { createAgent, getAgent, updateAgent } = await import("@/lib/agents/service");
    const { Prisma } = await import("@/lib/db");
    await db.organization.findFirst(); // Prisma connects: the driver is captured.
    const actor = { type: "api_key" as const, id: "key_driver" };
    const fields = {
      instructions: "Calcule.",
      temperature: 0.25,
      tools: ["calculate"],
      output_schema: { type: "object", properties: { total: { type: "number" } } },
      client_tools: [{ name: "confirm", description: "Ask.", parameters: { type: "object" } }],
    };
    const created = await createAgent(tenant.organizationId, { name: "A on the driver", ...fields }, actor);
    expect(await getAgent(tenant.organizationId, created.id)).toStrictEqual(created);
    // The same agent through Prisma: every column is stored in the same form.
    const viaPrisma = await db.agent.create({
      data: {
        id: "agt_viaprisma" + tenant.organizationId.slice(-12),
        organizationId: tenant.organizationId,
        name: "B through Prisma",
        instructions: "Calcule.",
        temperatureCenti: 25,
        tools: created.tools,
        outputSchema: fields.output_schema,
        clientTools: fields.client_tools,
      },
    });
    const [onDriver, throughPrisma] = await storedShape([created.id, viaPrisma.id]);
    expect(onDriver).toStrictEqual(throughPrisma);

    const changed = await updateAgent(
      tenant.organizationId,
      created.id,
      { temperature: 0.5, output_schema: null, active: false },
      actor,
    );
    expect(changed).toMatchObject({ temperature: 0.5, output_schema: null, active: false });
    expect(await getAgent(tenant.organizationId, created.id)).toStrictEqual(changed);
    await db.agent.update({
      where: { id: viaPrisma.id },
      data: { temperatureCenti: 50, outputSchema: Prisma.DbNull, active: false },
    });
    const [changedOnDriver, changedThroughPrisma] = await storedShape([created.id, viaPrisma.id]);
    expect(changedOnDriver).toStrictEqual(changedThroughPrisma);

    const events = await db.auditEvent.findMany({
      where: { organizationId: tenant.organizationId, targetId: created.id },
      orderBy: { createdAt: "asc" },
    });
    expect(events.map((e) => [e.action, e.actorType, e.actorId, e.details])).toEqual([
      [
        "agent.created",
        "api_key",
        "key_driver",
        { name: "A on the driver", fields: Object.keys({ name: 1, ...fields }) },
      ],
      [
        "agent.updated",
        "api_key",
        "key_driver",
        { name: "A on the driver", fields: ["temperature", "output_schema", "active"] },
      ],
    ]);
    expect(events[0].createdAt).toBeInstanceOf(Date);

    // The plan's quota holds on the driver: at the limit, the next creation is refused and nothing is written.
    const count = await db.agent.count({ where: { organizationId: tenant.organizationId } });
    await arrangePlan(tenant, { maxAgents: count });
    await expect(createAgent(tenant.organizationId, { name: "C over quota" }, actor)).rejects.toMatchObject({
      code: "quota_exceeded",
    });
    await arrangePlan(tenant, { maxAgents: count + 5 });
    await expect(createAgent(tenant.organizationId, { name: "A on the driver" }, actor)).rejects.toMatchObject({
      code: "agent_name_taken",
    });
    expect(await db.agent.count({ where: { organizationId: tenant.organizationId } })).toBe(count);
    expect(await db.auditEvent.count({ where: { organizationId: tenant.organizationId, targetType: "agent" } })).toBe(
      2,
    );
  });
});

describe("statements prepared on the driver", () => {
  it("keep distinct names across the module instances of one process (each bundle loads the driver)", async () => {
    const db = await testDb();
    const first = await import("@/lib/db/driver");
    vi.resetModules();
    const second = await import("@/lib/db/driver");
    expect(second).not.toBe(first);
    // Prisma has connected by now: both instances read on the process's one connection (one pool).
    await db.$queryRaw`SELECT 1`;
    const sqls = [`SELECT 1 AS "one"`, `SELECT 2 AS "two"`, `SELECT 3 AS "three"`];
    for (let round = 0; round < 3; round++)
      for (const [i, sql] of sqls.entries()) {
        const rows = await (i % 2 ? second : first).driverRows({ sql, values: [] });
        expect(rows).toEqual([{ [["one", "two", "three"][i]]: i + 1 }]);
      }
  });
});
