import { beforeAll, describe, expect, it } from "vitest";
import { api, baseUrl, createTenant, testDb, type Tenant } from "./helpers";
import { createAgent } from "./dispatch-fixtures";
import { grantOverHttp, grantsOf, initializeWith } from "./oauth-helpers";

// « Applications connectées » through /v1: a member lists and revokes their own
// grants, owners and administrators every member's and the clients they went
// to; another organization's grant or client is 404; a revocation ends the
// tokens at their next request.

let tenant: Tenant;
let agentId: string;
const door = () => `${baseUrl}/mcp/agents/${agentId}`;

beforeAll(async () => {
  tenant = await createTenant("pro");
  agentId = (await createAgent(tenant, { name: "Support" })).id;
});

describe("connected applications", () => {
  it("lists a member's own grants, every grant for an admin, and revokes at once", async () => {
    const mine = await grantOverHttp(agentId, tenant.emails.developer);
    const theirs = await grantOverHttp(agentId, tenant.emails.approver, "mcp:read");
    const developer = await tenant.as("developer");
    const own = await api("/v1/oauth_grants", { as: developer });
    expect(own.status).toBe(200);
    expect(own.body.data).toHaveLength(1);
    expect(own.body.data[0]).toMatchObject({
      client: { name: "Client de test", kind: "registered" },
      agent: { id: agentId, name: "Support" },
      scope: "mcp:read_write",
    });
    const all = await api("/v1/oauth_grants", { as: await tenant.as("admin") });
    expect(all.body.data).toHaveLength(2);

    // The developer cannot revoke the approver's grant: 404, and it still works.
    const approverGrant = all.body.data.find((grant: { scope: string }) => grant.scope === "mcp:read");
    const refused = await api(`/v1/oauth_grants/${approverGrant.id}`, { method: "DELETE", as: developer });
    expect(refused.status).toBe(404);
    expect((await initializeWith(theirs.tokens.access_token, door())).status).toBe(200);

    const revoked = await api(`/v1/oauth_grants/${own.body.data[0].id}`, { method: "DELETE", as: developer });
    expect(revoked.status).toBe(200);
    expect((await initializeWith(mine.tokens.access_token, door())).status).toBe(401);
    const db = await testDb();
    const event = await db.auditEvent.findFirstOrThrow({
      where: { organizationId: tenant.organizationId, action: "oauth_grant.revoked", targetId: own.body.data[0].id },
    });
    expect(event.details).toMatchObject({ reason: "member" });
  });

  it("keeps another organization's grants and clients out of reach (404)", async () => {
    const other = await createTenant("pro");
    const otherAgent = (await createAgent(other)).id;
    const granted = await grantOverHttp(otherAgent, other.emails.developer);
    const [grant] = await grantsOf(other.organizationId);
    const admin = await tenant.as("admin");
    expect((await api(`/v1/oauth_grants/${grant.id}`, { method: "DELETE", as: admin })).status).toBe(404);
    expect((await api(`/v1/oauth_clients/${grant.clientId}`, { method: "DELETE", as: admin })).status).toBe(404);
    expect((await api("/v1/oauth_grants", { as: admin })).body.data.map((g: { id: string }) => g.id)).not.toContain(
      grant.id,
    );
    expect((await initializeWith(granted.tokens.access_token, `${baseUrl}/mcp/agents/${otherAgent}`)).status).toBe(200);
  });

  it("lets an admin delete a client for the organization, and only an admin list them", async () => {
    const granted = await grantOverHttp(agentId, tenant.emails.owner);
    const [grant] = (await grantsOf(tenant.organizationId)).filter(
      (g) => g.revokedAt === null && g.scope === "mcp:read_write",
    );
    expect((await api("/v1/oauth_clients", { as: await tenant.as("developer") })).status).toBe(403);
    const admin = await tenant.as("admin");
    const clients = await api("/v1/oauth_clients", { as: admin });
    expect(clients.body.data.map((c: { id: string }) => c.id)).toContain(grant.clientId);
    const deleted = await api(`/v1/oauth_clients/${grant.clientId}`, { method: "DELETE", as: admin });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data.revoked_grants).toBe(1);
    expect((await initializeWith(granted.tokens.access_token, door())).status).toBe(401);
    const db = await testDb();
    expect(await db.oAuthClient.findUnique({ where: { id: grant.clientId } })).toBeNull();
  });
});
