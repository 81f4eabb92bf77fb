import { describe, expect, it } from "vitest";
import { api, createTenant, crmState, type Tenant } from "./helpers";
import { sdkClient, sessionRunOf, PREVIEW_ARGS } from "./mcp-server-helpers";
import {
  approve,
  commit,
  crmCustomer,
  type CrmSetup,
  crmSuite,
  getProposal,
  previewAddress,
  refuse,
} from "./proposals-helpers";

// What an approver is told besides the change itself: who asks (the agent,
// its run, how the run was started), the service's names for the fields, and
// whether the proposal still holds — a proposal whose record another commit
// moved past is flagged stale, and its own commit is indeed refused by CRM Acme.

const setup = crmSuite();

async function pendingOn(address: string, as?: Parameters<CrmSetup["run"]>[0]) {
  const run = await setup.run(as);
  const preview = await previewAddress(setup, run, address);
  expect(preview.evidence.proposal.status).toBe("pending");
  return { run, id: preview.evidence.proposal.id as string };
}

async function pendingList(tenant: Tenant) {
  const response = await api("/v1/proposals?status=pending&order=expires_at", { as: { key: tenant.key } });
  expect(response.status).toBe(200);
  return response.body.data as Array<Record<string, any>>;
}

describe("the requester", () => {
  it("names the agent, the run and the API key that started it", async () => {
    const { run, id } = await pendingOn("ADDR-2");
    const agent = (await api(`/v1/agents/${setup.agentId}`, { as: { key: setup.tenant.key } })).body.data;
    const proposal = await getProposal(setup.tenant, id);
    expect(proposal.requester).toEqual({
      agent: { id: setup.agentId, name: agent.name },
      run,
      source: "api_key",
      api_key: { id: expect.stringMatching(/^key_/), name: expect.stringMatching(/^test /) },
      member: null,
      mcp_client: null,
      widget: null,
    });
  });

  it("names the signed-in person when the run was started from the console", async () => {
    const { id } = await pendingOn("ADDR-2", "developer");
    const proposal = await getProposal(setup.tenant, id);
    expect(proposal.requester).toMatchObject({
      source: "console",
      api_key: null,
      member: { name: `developer ${setup.tenant.slug}` },
      mcp_client: null,
    });
  });

  it("names the MCP client and its version when an MCP session asked", async () => {
    const { client } = await sdkClient(setup.agentId, setup.tenant.key, "read_write", "claude-desktop");
    try {
      const preview = await client.callTool({ name: setup.crm.key("preview_address_change"), arguments: PREVIEW_ARGS });
      const card = (preview.structuredContent as { proposal: { id: string } }).proposal;
      const proposal = await getProposal(setup.tenant, card.id);
      expect(proposal.requester).toMatchObject({
        run: (await sessionRunOf(setup.agentId)).id,
        source: "mcp",
        mcp_client: { name: "claude-desktop", version: "1.2.3" },
      });
    } finally {
      await client.close();
    }
  });

  it("says the agent was deleted, and the run stays named", async () => {
    const agent = (
      await api("/v1/agents", {
        json: {
          name: `Éphémère ${Date.now()}`,
          tools: [setup.crm.key("preview_address_change"), setup.crm.key("commit_address_change")],
        },
        as: { key: setup.tenant.key },
      })
    ).body.data;
    const run = (
      await api("/v1/runs", { json: { agent: agent.id, capabilities: "read_write" }, as: { key: setup.tenant.key } })
    ).body.data.id as string;
    const preview = await previewAddress(setup, run, "ADDR-3");
    expect((await api(`/v1/agents/${agent.id}`, { method: "DELETE", as: { key: setup.tenant.key } })).body).toEqual({
      data: { id: agent.id, deleted: true },
    });
    expect((await getProposal(setup.tenant, preview.evidence.proposal.id)).requester).toMatchObject({
      agent: null,
      run,
      source: "api_key",
    });
  });

  it("carries the service's French label of each field, the raw key beside it", async () => {
    const { id } = await pendingOn("ADDR-2");
    const proposal = await getProposal(setup.tenant, id);
    expect(proposal.changes).toEqual([
      {
        field: "shipping_address",
        label: "Adresse de livraison",
        before: expect.any(Object),
        after: expect.any(Object),
      },
    ]);
    expect(proposal.effect).toMatch(
      /^Remplacer l’adresse de livraison du client C-1842 \(Camille Martin\), actuellement « 8 rue des Lilas, 75011 Paris, FR », par « 24 quai Saint-Antoine, 69002 Lyon, FR »/,
    );
  });
});

describe("a stale proposal", () => {
  it("is flagged once another proposal on the same customer is committed, and its own commit is refused by CRM Acme", async () => {
    const first = await pendingOn("ADDR-2");
    const second = await pendingOn("ADDR-3");
    expect(
      (await pendingList(setup.tenant)).filter((p) => [first.id, second.id].includes(p.id)).map((p) => p.stale),
    ).toEqual([false, false]);

    expect((await approve(setup.tenant, first.id, "approver")).body.data).toMatchObject({
      status: "approved",
      stale: false,
    });
    expect((await commit(setup, first.run, "commit_address_change", first.id)).ok).toBe(true);
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18, shipping_address: { city: "Lyon" } });

    expect(await getProposal(setup.tenant, first.id)).toMatchObject({ status: "consumed", stale: false });
    expect(await getProposal(setup.tenant, second.id)).toMatchObject({
      status: "pending",
      stale: true,
      target: { version: 17 },
    });
    expect((await pendingList(setup.tenant)).find((p) => p.id === second.id)).toMatchObject({ stale: true });
    // Another organization sees neither.
    const other = await createTenant("pro");
    expect((await api(`/v1/proposals/${second.id}`, { as: { key: other.key } })).status).toBe(404);
    expect((await pendingList(other)).map((p) => p.id)).toEqual([]);

    // Approving it anyway: the approval is recorded, the commit is refused at the service and nothing changes.
    expect((await approve(setup.tenant, second.id, "approver")).body.data).toMatchObject({
      status: "approved",
      stale: true,
    });
    const refused = await commit(setup, second.run, "commit_address_change", second.id);
    expect(refused.ok).toBe(false);
    expect(refused.error.code).toBe("VERSION_CONFLICT");
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18, shipping_address: { city: "Lyon" } });
    expect((await crmState()).operations.filter((op: { status: string }) => op.status === "succeeded")).toHaveLength(1);
  });

  it("is refused as stale with a reason in one call, and is no longer flagged once decided", async () => {
    const first = await pendingOn("ADDR-2");
    const second = await pendingOn("ADDR-3");
    await approve(setup.tenant, first.id, "approver");
    await commit(setup, first.run, "commit_address_change", first.id);
    const reason = "Périmée : la fiche a changé depuis cette proposition.";
    const refused = await refuse(setup.tenant, second.id, "approver", reason);
    expect(refused.status).toBe(200);
    expect(refused.body.data).toMatchObject({
      status: "refused",
      stale: false,
      decisions: [{ decision: "refuse", reason }],
    });
    expect((await pendingList(setup.tenant)).some((p) => p.id === second.id)).toBe(false);
  });

  it("is not flagged by a commit on another customer, nor by a later proposal on the same one", async () => {
    const mine = await pendingOn("ADDR-2");
    const run = await setup.run();
    const elsewhere = await previewAddress(setup, run, "ADDR-5", "C-2001");
    await approve(setup.tenant, elsewhere.evidence.proposal.id, "approver");
    expect((await commit(setup, run, "commit_address_change", elsewhere.evidence.proposal.id)).ok).toBe(true);
    expect((await getProposal(setup.tenant, mine.id)).stale).toBe(false);
    // Committing this one moves C-1842 to 18; a proposal made after, at 18, holds.
    await approve(setup.tenant, mine.id, "approver");
    await commit(setup, mine.run, "commit_address_change", mine.id);
    const later = await pendingOn("ADDR-3");
    expect(await getProposal(setup.tenant, later.id)).toMatchObject({ target: { version: 18 }, stale: false });
  });
});
