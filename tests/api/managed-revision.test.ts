import { describe, expect, it } from "vitest";
import { createScript, scriptRecord } from "@/connectors/model-sim/control";
import { api, simBaseUrl, until } from "./helpers";
import { approveOk, crmCustomer, crmOperationsOf, crmSuite, getProposal } from "./proposals-helpers";

// A managed run waits for a proposal a person then revises: the run keeps
// waiting for the revision (not for the closed original), resumes once the
// revision is approved by someone else, commits the revised arguments once in
// CRM Acme, and the tool result the model reads says a person revised them.

const setup = crmSuite();

const runOf = async (id: string) =>
  (await api(`/v1/runs/${id}`, { as: { key: setup.tenant.key } })).body.data as Record<string, any>;

describe("a managed run whose held proposal a person revised", () => {
  it("resumes on the approved revision and tells the model the arguments were revised", async () => {
    const s = await createScript(simBaseUrl, {
      turns: [
        {
          tool_calls: [
            {
              name: setup.crm.key("preview_address_change"),
              arguments: { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } },
            },
          ],
        },
        { text: "C'est fait." },
      ],
    });
    const started = await api("/v1/runs", {
      json: {
        agent: setup.agentId,
        input: "Changez l'adresse.",
        instructions: s.marker,
        capabilities: "read_write",
        wait: 60,
      },
      as: { key: setup.tenant.key },
    });
    expect(started.status).toBe(201);
    const run = started.body.data;
    const original = run.pending_proposals[0] as string;

    const revised = await api(`/v1/proposals/${original}/revise`, {
      json: { arguments: { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-3" } } },
      as: await setup.tenant.as("approver"),
    });
    expect(revised.status, JSON.stringify(revised.body)).toBe(201);
    const revision = revised.body.data.id as string;
    // The original is closed, but the run still waits: for the revision.
    expect((await runOf(run.id)).status).toBe("requires_approval");
    expect((await scriptRecord(simBaseUrl, s.id)).requests).toHaveLength(1);

    await approveOk(setup.tenant, revision, "admin");
    const done = await until(async () => {
      const current = await runOf(run.id);
      return current.status === "completed" ? current : null;
    }, "the run to resume on the revision");
    expect(done.output).toMatchObject({ text: "C'est fait." });
    expect(await crmOperationsOf(run.id)).toHaveLength(1);
    expect((await crmCustomer("C-1842")).shipping_address).toMatchObject({ city: "Bordeaux" });
    expect(await getProposal(setup.tenant, revision)).toMatchObject({ status: "consumed" });
    expect(await getProposal(setup.tenant, original)).toMatchObject({ status: "revised", superseded_by: revision });

    const requests = (await scriptRecord(simBaseUrl, s.id)).requests;
    expect(requests).toHaveLength(2);
    const tool = requests[1].messages.find((m) => m.role === "tool");
    const answer = JSON.parse(String(tool?.content));
    expect(answer).toMatchObject({
      approval: { proposal_id: revision, status: "approved", revised_from: original },
      evidence: {
        revision: {
          original_proposal: original,
          arguments: { destination: { kind: "saved", address_id: "ADDR-3" } },
          changes: [{ field: "/destination/address_id", before: "ADDR-2", after: "ADDR-3" }],
          note: expect.stringContaining("A person revised the arguments"),
        },
      },
    });
  });
});
