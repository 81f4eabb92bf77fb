import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { testDb } from "./helpers";
import { sdkClient } from "./mcp-server-helpers";
import { approve, commit, crmCustomer, crmSuite, getProposal, previewAddress, resetCrm } from "./proposals-helpers";

// A preview of what is already on file answers NO_CHANGE and stores no proposal;
// approving a proposal a newer preview replaced says which one replaced it.

const setup = crmSuite();

describe("a preview that changes nothing", () => {
  it("answers NO_CHANGE (not retryable), stores no proposal and records the step", async () => {
    const run = await setup.run();
    // C-1842 ships to ADDR-1 already.
    const before = await crmCustomer("C-1842");
    const preview = await previewAddress(setup, run, "ADDR-1");
    expect(preview.ok).toBe(false);
    expect(preview.error).toMatchObject({ code: "NO_CHANGE", retryable: false });
    expect(preview.error.message).toContain("nothing to approve");
    const db = await testDb();
    expect(await db.proposal.count({ where: { runId: run } })).toBe(0);
    const step = await db.step.findFirstOrThrow({ where: { runId: run }, orderBy: { createdAt: "desc" } });
    expect(step.errorCode).toBe("NO_CHANGE");
    expect(await crmCustomer("C-1842")).toEqual(before);
  });

  it("leaves a pending card of a real change in the same run as it was", async () => {
    const run = await setup.run();
    const real = await previewAddress(setup, run, "ADDR-2");
    expect(real.evidence.proposal.status).toBe("pending");
    const noop = await previewAddress(setup, run, "ADDR-1");
    expect(noop.error.code).toBe("NO_CHANGE");
    const db = await testDb();
    expect(await db.proposal.count({ where: { runId: run } })).toBe(1);
    expect((await getProposal(setup.tenant, real.evidence.proposal.id)).status).toBe("pending");
  });

  it("says NO_CHANGE over the MCP door, as an outcome (no isError, no card)", async () => {
    const { client } = await sdkClient(setup.agentId, setup.tenant.key, "read_write");
    try {
      const answer = await client.callTool({
        name: setup.crm.key("preview_address_change"),
        arguments: { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-1" } },
      });
      expect(answer.isError).toBeFalsy();
      const text = (answer.content as { type: string; text: string }[])[0].text;
      expect(text).toMatch(/^NO_CHANGE: /);
      expect(text).toContain("Do not call the commit tool");
      expect(answer.structuredContent).toMatchObject({ error: { code: "NO_CHANGE", retryable: false } });
      expect(answer.structuredContent).not.toHaveProperty("proposal");
      const db = await testDb();
      const session = await db.run.findFirstOrThrow({
        where: { agentId: setup.agentId, source: "mcp" },
        orderBy: { createdAt: "desc" },
      });
      expect(await db.proposal.count({ where: { runId: session.id } })).toBe(0);
    } finally {
      await client.close();
    }
  });
});

describe("a superseded proposal", () => {
  let run: string;
  let older: string;
  let newer: string;

  beforeEach(async () => {
    run = await setup.run();
    older = (await previewAddress(setup, run, "ADDR-2")).evidence.proposal.id;
    newer = (await previewAddress(setup, run, "ADDR-3")).evidence.proposal.id;
    expect(newer).not.toBe(older);
  });
  afterAll(resetCrm);

  it("names the proposal that replaced it, in its JSON", async () => {
    expect(await getProposal(setup.tenant, older)).toMatchObject({ status: "superseded", superseded_by: newer });
    expect(await getProposal(setup.tenant, newer)).toMatchObject({ status: "pending", superseded_by: null });
  });

  it("refuses its approval with 409 proposal_superseded naming superseded_by, and records no decision", async () => {
    const refused = await approve(setup.tenant, older, "approver");
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: "proposal_superseded",
      reason: { status: "superseded", superseded_by: newer },
    });
    expect(refused.body.error.message).toContain(newer);
    expect(refused.body.error.message).not.toContain("already decided");
    expect(await (await testDb()).decision.count({ where: { proposalId: older } })).toBe(0);
    // The newer one is the one to decide.
    expect((await approve(setup.tenant, newer, "approver")).status).toBe(200);
  });

  it("tells the agent which proposal to commit instead", async () => {
    const answer = await commit(setup, run, "commit_address_change", older);
    expect(answer.ok).toBe(false);
    expect(answer.error.code).toBe("PROPOSAL_NOT_APPROVED");
    expect(answer.error.message).toContain(newer);
  });
});
