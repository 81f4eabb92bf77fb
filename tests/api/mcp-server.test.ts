import { describe, expect, it } from "vitest";
import { testDb } from "./helpers";
import { crmCustomer, crmSuite } from "./proposals-helpers";
import {
  approveCard,
  expectOneAddressChange,
  mcpUrl,
  PREVIEW_ARGS,
  sdkClient,
  sessionRunOf,
} from "./mcp-server-helpers";

// Guichet as an MCP server, driven by the official SDK client over real HTTP:
// one session is one run, every call goes through the dispatcher, a write
// becomes a proposal a person approves, and the commit takes only its id.

const setup = crmSuite();

describe("the official SDK client", () => {
  it("lists the run's tools, reads, gets a typed refusal, previews, and commits an approved proposal once", async () => {
    const { client, transport } = await sdkClient(setup.agentId, setup.tenant.key, "read_write");
    const run = await sessionRunOf(setup.agentId);
    expect(run).toMatchObject({
      source: "mcp",
      clientName: "guichet-tests",
      clientVersion: "1.2.3",
      capabilities: "read_write",
      status: "active",
    });
    expect(run.mcpSessionHash).toMatch(/^[0-9a-f]{64}$/);
    expect(transport.sessionId).toMatch(/^mcps_/);
    expect(client.getServerVersion()?.name).toBe("guichet");

    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const getCustomer = byName.get(setup.crm.key("get_customer"));
    expect(getCustomer?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    const commitTool = byName.get(setup.crm.key("commit_address_change"));
    expect(commitTool?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    // The commit tool takes only a proposal id: the arguments come from the approved proposal.
    expect(Object.keys((commitTool?.inputSchema.properties ?? {}) as object)).toEqual(["proposal_id"]);
    expect(byName.has("calculate")).toBe(true);

    const read = await client.callTool({ name: setup.crm.key("get_customer"), arguments: { customer_id: "C-1842" } });
    expect(read.isError).toBeFalsy();
    expect(read.structuredContent).toMatchObject({
      result: { customer_id: "C-1842", version: 17 },
      evidence: { run: run.id, effect: "read", untrusted: true },
    });

    const refused = await client.callTool({
      name: setup.crm.key("get_customer"),
      arguments: { customer_id: "not an id" },
    });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({
      error: { code: "INVALID_ARGUMENTS", retryable: false, field: "/customer_id" },
    });

    const preview = await client.callTool({ name: setup.crm.key("preview_address_change"), arguments: PREVIEW_ARGS });
    expect(preview.isError).toBeFalsy();
    const card = (preview.structuredContent as { proposal: Record<string, any> }).proposal;
    expect(card).toMatchObject({
      id: expect.stringMatching(/^prop_/),
      status: "pending",
      effect: expect.any(String),
      approvals_required: 1,
      changes: [
        { field: "shipping_address", before: expect.any(Object), after: expect.objectContaining({ city: "Lyon" }) },
      ],
      approval_url: expect.stringMatching(/\/approbations\/prop_/),
      commit: { arguments: { proposal_id: expect.any(String) } },
    });
    expect(card.approval_url.endsWith(`/approbations/${card.id}`)).toBe(true);

    // Not approved yet: the commit is a typed refusal and CRM Acme is untouched.
    const early = await client.callTool({
      name: setup.crm.key("commit_address_change"),
      arguments: { proposal_id: card.id },
    });
    expect(early.isError).toBe(true);
    expect((early.structuredContent as { error: { code: string } }).error.code).toBe("PROPOSAL_NOT_APPROVED");
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 17 });

    await approveCard(setup, card.id);
    const committed = await client.callTool({
      name: setup.crm.key("commit_address_change"),
      arguments: { proposal_id: card.id },
    });
    expect(committed.isError).toBeFalsy();
    expect(committed.structuredContent).toMatchObject({
      result: { customer_id: "C-1842", previous_version: 17, new_version: 18 },
      evidence: { proposal_id: card.id, effect: "write" },
    });
    await expectOneAddressChange(setup, run.id, card.id);

    const steps = await (await testDb()).step.findMany({ where: { runId: run.id }, orderBy: { createdAt: "asc" } });
    expect(steps.map((step) => [step.status, step.errorCode])).toEqual([
      ["ok", null],
      ["error", "INVALID_ARGUMENTS"],
      ["ok", null],
      ["error", "PROPOSAL_NOT_APPROVED"],
      ["ok", null],
    ]);

    // DELETE ends the session: the run is completed and the session id answers 404.
    const sessionId = transport.sessionId as string;
    await transport.terminateSession();
    expect((await (await testDb()).run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("completed");
    const after = await fetch(mcpUrl(setup.agentId), {
      method: "POST",
      headers: {
        authorization: `Bearer ${setup.tenant.key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": sessionId,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    });
    expect(after.status).toBe(404);
    expect((await after.json()).error.code).toBe(-32001);
    await client.close();
  });

  it("opens a read session by default: the write tool is absent and refused with TOOL_NOT_IN_RUN", async () => {
    const { client } = await sdkClient(setup.agentId, setup.tenant.key);
    const run = await sessionRunOf(setup.agentId);
    expect(run.capabilities).toBe("read");
    const { tools } = await client.listTools();
    expect(tools.some((tool) => tool.name === setup.crm.key("commit_address_change"))).toBe(false);
    expect(client.getInstructions()).toContain(setup.crm.key("commit_address_change"));
    const refused = await client.callTool({
      name: setup.crm.key("commit_address_change"),
      arguments: { proposal_id: "prop_01jx0000000000000000000000" },
    });
    expect(refused.isError).toBe(true);
    expect((refused.structuredContent as { error: { code: string } }).error.code).toBe("TOOL_NOT_IN_RUN");
    expect((await crmCustomer("C-1842")).version).toBe(17);
    await client.close();
  });
});
