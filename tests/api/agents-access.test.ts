import { beforeAll, describe, expect, it } from "vitest";
import type { Scope } from "@/lib/auth/scopes";
import { createAgent, upload, uploadForm } from "./agents-helpers";
import { api, createTenant, testDb, type Caller, type Tenant } from "./helpers";

// Who may call the agents, documents and files routes: scopes for API keys,
// roles for people (same handlers), and 404 — never 403 — across organizations.

let acme: Tenant;
let other: Tenant;
let agent: Record<string, any>;
let doc: Record<string, any>;
let file: Record<string, any>;

beforeAll(async () => {
  acme = await createTenant("pro");
  other = await createTenant("pro");
  agent = await createAgent(acme, { name: "Guarded", tools: ["create_chart"] });
  doc = (await upload(acme, `/v1/agents/${agent.id}/documents`, "doc", "doc.txt")).body.data;
  file = (await upload(acme, "/v1/files", "plain", "plain.txt")).body.data;
});

type Route = { label: string; method: string; path: () => string; json?: unknown; multipart?: boolean };
/** Routes that name one resource of the organization. */
const named = (route: Route) => /\$\{|agents\/|files\//.test(route.path.toString());
const routes: Route[] = [
  { label: "list agents", method: "GET", path: () => "/v1/agents" },
  { label: "create an agent", method: "POST", path: () => "/v1/agents", json: { name: "Scoped" } },
  { label: "read an agent", method: "GET", path: () => `/v1/agents/${agent.id}` },
  { label: "update an agent", method: "PATCH", path: () => `/v1/agents/${agent.id}`, json: { temperature: 1 } },
  { label: "delete an agent", method: "DELETE", path: () => `/v1/agents/${agent.id}` },
  { label: "list documents", method: "GET", path: () => `/v1/agents/${agent.id}/documents` },
  { label: "upload a document", method: "POST", path: () => `/v1/agents/${agent.id}/documents`, multipart: true },
  { label: "delete a document", method: "DELETE", path: () => `/v1/agents/${agent.id}/documents/${doc.id}` },
  { label: "list files", method: "GET", path: () => "/v1/files" },
  { label: "upload a file", method: "POST", path: () => "/v1/files", multipart: true },
  { label: "read a file", method: "GET", path: () => `/v1/files/${file.id}` },
  { label: "download a file", method: "GET", path: () => `/v1/files/${file.id}/content` },
  { label: "delete a file", method: "DELETE", path: () => `/v1/files/${file.id}` },
];

const call = (route: Route, as: Caller) =>
  api(route.path(), {
    method: route.method,
    as,
    ...(route.multipart ? { body: uploadForm("x", "x.txt") } : route.json ? { json: route.json } : {}),
  });

// [route label, scopes that open it]
const scopeTable: [string, Scope[]][] = [
  ["list agents", ["agents:read", "runs:read"]],
  ["read an agent", ["agents:read", "runs:read"]],
  ["list documents", ["agents:read", "runs:read"]],
  ["create an agent", ["agents:write"]],
  ["update an agent", ["agents:write"]],
  ["upload a document", ["agents:write"]],
  ["list files", ["files:read"]],
  ["read a file", ["files:read"]],
  ["download a file", ["files:read"]],
  ["upload a file", ["files:write"]],
];
const allScopes: Scope[] = [
  "agents:read",
  "agents:write",
  "runs:read",
  "runs:write",
  "files:read",
  "files:write",
  "tools:read",
];

describe("scopes", () => {
  it.each(scopeTable)("%s needs one of %j", async (label, opening) => {
    const route = routes.find((r) => r.label === label)!;
    for (const scope of allScopes) {
      const response = await call(route, { key: await acme.keyWith([scope]) });
      if (opening.includes(scope)) {
        expect([200, 201], `${label} with ${scope}`).toContain(response.status);
      } else {
        expect(response.status, `${label} with ${scope}`).toBe(403);
        expect(response.body.error.code).toBe("insufficient_scope");
      }
    }
  });

  it("refuses deletes without the write scope and leaves everything in place", async () => {
    const readOnly = { key: await acme.keyWith(["agents:read", "runs:read", "files:read", "files:write"]) };
    for (const label of ["delete an agent", "delete a document"]) {
      expect(
        (
          await call(
            routes.find((r) => r.label === label)!,
            readOnly,
          )
        ).status,
      ).toBe(403);
    }
    const noFilesWrite = { key: await acme.keyWith(["agents:write", "files:read"]) };
    expect(
      (
        await call(
          routes.find((r) => r.label === "delete a file")!,
          noFilesWrite,
        )
      ).status,
    ).toBe(403);
    const db = await testDb();
    expect(await db.agent.findUnique({ where: { id: agent.id } })).not.toBeNull();
    expect(await db.file.count({ where: { id: { in: [doc.id, file.id] } } })).toBe(2);
  });

  it("answers 401 without credentials", async () => {
    for (const route of routes) expect((await call(route, {})).status).toBe(401);
  });

  it("lets people through the same handlers by role: viewers read, developers write", async () => {
    const viewer = await acme.as("viewer");
    expect((await call(routes[0], viewer)).status).toBe(200);
    const refused = await api("/v1/agents", { json: { name: "By viewer" }, as: viewer });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("insufficient_scope");
    const created = await api("/v1/agents", { json: { name: "By developer" }, as: await acme.as("developer") });
    expect(created.status).toBe(201);
    const sameRules = await api("/v1/agents", { json: { name: "By developer" }, as: await acme.as("developer") });
    expect(sameRules.status).toBe(409);
    expect(sameRules.body.error.code).toBe("agent_name_taken");
  });
});

describe("another organization", () => {
  it.each(routes.filter(named).map((r) => [r.label, r] as const))(
    "gets 404 to %s, and nothing changes",
    async (_label, route) => {
      const db = await testDb();
      const before = await db.agent.findUniqueOrThrow({ where: { id: agent.id } });
      const response = await call(route, { key: other.key });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe("not_found");
      expect(await db.agent.findUniqueOrThrow({ where: { id: agent.id } })).toEqual(before);
      expect(await db.file.count({ where: { id: { in: [doc.id, file.id] } } })).toBe(2);
      expect(await db.file.count({ where: { organizationId: other.organizationId } })).toBe(0);
    },
  );

  it("does not see the agents or files in its lists", async () => {
    expect((await api("/v1/agents", { as: { key: other.key } })).body.data).toEqual([]);
    expect((await api("/v1/files", { as: { key: other.key } })).body.data).toEqual([]);
  });
});
