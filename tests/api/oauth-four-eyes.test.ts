import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { api, baseUrl, signIn, testDb } from "./helpers";
import { PREVIEW_ARGS } from "./mcp-server-helpers";
import { grantOverHttp } from "./oauth-helpers";
import { approve, crmSuite, getProposal } from "./proposals-helpers";

// The four-eyes rule at the MCP door: a member who asks for a write through an
// OAuth client is its requester, so a policy row with requester_can_approve
// false keeps them from approving it when they sign in to the console, while
// another approver can. Dana is a developer: the row names developers among its
// approvers, so what bars her is being the requester, nothing else.

const setup = crmSuite();

/** Publishes the table with the « writes » row open to developers, four eyes on or off. */
async function writesRow(requesterCanApprove: boolean) {
  const admin = await setup.tenant.as("admin");
  const current = (await api("/v1/policies", { as: admin })).body.data;
  const rules = current.rules.map((rule: Record<string, unknown>) =>
    rule.id === "writes"
      ? {
          ...rule,
          approver_roles: ["owner", "admin", "approver", "developer"],
          requester_can_approve: requesterCanApprove,
        }
      : rule,
  );
  const put = await api("/v1/policies", {
    method: "PUT",
    json: { rules, base_version: current.version },
    as: admin,
  });
  expect(put.status).toBe(200);
}

/** Dana, through her OAuth client (« Claude »), asks for an address change: the pending proposal's id. */
async function danaAsksThroughClaude(): Promise<string> {
  const { tokens } = await grantOverHttp(setup.agentId, setup.tenant.emails.developer);
  const transport = new StreamableHTTPClientTransport(
    new URL(`${baseUrl}/mcp/agents/${setup.agentId}?capabilities=read_write`),
    { requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } } },
  );
  const client = new Client({ name: "claude-ai", version: "0.1.0" });
  await client.connect(transport);
  try {
    const preview = await client.callTool({ name: setup.crm.key("preview_address_change"), arguments: PREVIEW_ARGS });
    expect(preview.isError).toBeFalsy();
    return (preview.structuredContent as { proposal: { id: string } }).proposal.id;
  } finally {
    await client.close();
  }
}

async function decisionsOn(proposalId: string) {
  return (await testDb()).decision.findMany({ where: { proposalId } });
}

describe("four eyes for a member at the MCP door by OAuth", () => {
  it("keeps Dana from approving her own write when the row says so; another approver can", async () => {
    await writesRow(false);
    const proposalId = await danaAsksThroughClaude();
    const db = await testDb();
    const dana = await db.member.findUniqueOrThrow({ where: { email: setup.tenant.emails.developer } });
    const proposal = await getProposal(setup.tenant, proposalId);
    expect(proposal.requested_by).toMatchObject({ id: dana.id });
    expect(proposal.policy).toMatchObject({ rule: "writes", requester_can_approve: false });
    expect(proposal.policy.approver_roles).toContain("developer");

    // Dana signs in to the console, which decides through /v1 with her session: refused, nothing recorded.
    const danaInConsole = await signIn(dana.email);
    const own = await approve(setup.tenant, proposalId, danaInConsole);
    expect(own.status).toBe(403);
    expect(own.body.error.code).toBe("self_approval_forbidden");
    expect(await decisionsOn(proposalId)).toHaveLength(0);
    expect((await getProposal(setup.tenant, proposalId)).status).toBe("pending");

    // Another member the row names approves it.
    const other = await approve(setup.tenant, proposalId, "approver");
    expect(other.status).toBe(200);
    expect(other.body.data.status).toBe("approved");
    const decisions = await decisionsOn(proposalId);
    expect(decisions).toHaveLength(1);
    expect(decisions[0].memberId).not.toBe(dana.id);
  });

  it("lets Dana approve her own write when the row allows it (what bars her above is the rule)", async () => {
    await writesRow(true);
    const proposalId = await danaAsksThroughClaude();
    const own = await approve(setup.tenant, proposalId, await signIn(setup.tenant.emails.developer));
    expect(own.status).toBe(200);
    expect(own.body.data.status).toBe("approved");
  });
});
