import type { BenchScenario } from "./main";

// GET /v1/tools for an organization with 3 MCP servers × 50 tools each (plus
// the built-in entries): the catalog is computed on every request, so this is
// the availability service's cost at a realistic connector count.

const SERVERS = 3;
const TOOLS_PER_SERVER = 50;

export const catalogScenario: BenchScenario = {
  name: `GET /v1/tools (${SERVERS} servers × ${TOOLS_PER_SERVER} tools)`,
  async prepare(stack) {
    // The stack's database, reached from this process (lib/env reads these once, on first import).
    process.env.DATABASE_URL = stack.databaseUrl;
    process.env.GUICHET_DATA_DIR = stack.dataDir;
    const { db } = await import("@/lib/db");
    const { newId } = await import("@/lib/ids");
    const { createApiKey } = await import("@/lib/api-keys/service");
    const { toolFingerprint } = await import("@/lib/mcp/fingerprint");
    const organization = await db.organization.create({
      data: { id: newId("org"), slug: `bench-${Date.now()}`, name: "Bench catalog", planId: "pro" },
    });
    for (let s = 0; s < SERVERS; s++) {
      const server = await db.mcpServer.create({
        data: {
          organizationId: organization.id,
          name: `Bench ${s + 1}`,
          url: `https://mcp${s + 1}.example.com/mcp`,
          auth: "none",
        },
      });
      await db.mcpTool.createMany({
        data: Array.from({ length: TOOLS_PER_SERVER }, (_, t) => {
          const shape = {
            description: `Tool ${t} of server ${s + 1}: reads or writes a record of the bench system.`,
            input_schema: {
              type: "object",
              additionalProperties: false,
              properties: { id: { type: "string", maxLength: 64 } },
              required: ["id"],
            },
            output_schema: { type: "object", properties: { id: { type: "string" }, version: { type: "integer" } } },
          };
          const fingerprint = toolFingerprint(shape);
          return {
            serverId: server.id,
            organizationId: organization.id,
            name: `tool_${String(t).padStart(2, "0")}`,
            description: shape.description,
            inputSchema: shape.input_schema,
            outputSchema: shape.output_schema,
            fingerprint,
            writesData: t % 3 === 0,
            enabled: t % 10 !== 0,
            // Two in three reviewed: the list mixes available tools and every MCP reason.
            reviewedFingerprint: t % 3 === 2 ? null : fingerprint,
          };
        }),
      });
    }
    const { secret } = await createApiKey({ organizationId: organization.id, name: "bench", scopes: ["tools:read"] });
    await db.$disconnect();
    return { path: "/v1/tools", headers: { authorization: `Bearer ${secret}` } };
  },
};
