import { beforeAll, describe, expect, it } from "vitest";
import { api, baseUrl, createTenant, signIn, testDb } from "./helpers";
import {
  ADDR_1,
  approve,
  commit,
  crmCustomer,
  previewAddress,
  resetCrm,
  setupCrm,
  type CrmSetup,
} from "./proposals-helpers";

// An approver who joined by invitation approves a write, then is removed before
// the commit: their approval no longer counts, so nothing reaches CRM Acme.

let setup: CrmSetup;
const origin = { origin: new URL(baseUrl).origin };
const PASSWORD = "Approbation-du-jeudi-7";

beforeAll(async () => {
  await resetCrm();
  setup = await setupCrm(await createTenant("pro"));
});

describe("a removed approver", () => {
  it("no longer counts at commit: refused, and the customer's address is unchanged", async () => {
    const { tenant } = setup;
    const email = `invited-approver@${tenant.slug}.test`;
    const invited = await api("/v1/invitations", {
      as: await tenant.as("admin"),
      json: { email, role: "approver" },
      headers: origin,
    });
    const token = new URL(invited.body.data.url).pathname.split("/").at(-1)!;
    expect(
      (await api("/api/invitations/accept", { json: { token, name: "Ana Invitée", password: PASSWORD } })).status,
    ).toBe(201);
    const approver = await signIn(email, PASSWORD);

    const run = await setup.run();
    const preview = await previewAddress(setup, run, "ADDR-2");
    const proposalId = preview.evidence.proposal.id;
    const approved = await approve(tenant, proposalId, approver);
    expect(approved.status).toBe(200);
    expect(approved.body.data.status).toBe("approved");

    const memberId = (await (await testDb()).member.findUniqueOrThrow({ where: { email } })).id;
    const removed = await api(`/v1/members/${memberId}`, {
      method: "DELETE",
      as: await tenant.as("admin"),
      headers: origin,
    });
    expect(removed.status).toBe(200);
    // Their open session is refused at the next request.
    expect((await api("/v1/proposals", { as: approver })).status).toBe(401);

    const envelope = await commit(setup, run, "commit_address_change", proposalId);
    expect(envelope.error).toMatchObject({ code: "APPROVER_NOT_AUTHORIZED" });
    const customer = await crmCustomer("C-1842");
    expect(customer).toMatchObject({ version: 17, shipping_address: ADDR_1 });
    const db = await testDb();
    expect(await db.operation.count({ where: { proposalId } })).toBe(0);
  });
});
