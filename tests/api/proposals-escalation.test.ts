import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool } from "./dispatch-fixtures";
import { api, createTenant, suiteNetwork, testDb, until, type Tenant } from "./helpers";
import { approveOk, getProposal, setupCrm, type CrmSetup } from "./proposals-helpers";
import { outboxTimings, startApp } from "./server";
import { startSmtpServer, type TestSmtpServer } from "./smtp";
import { startReceiver, type Receiver } from "./webhook-receiver";

// Escalation: a row's escalate_after_seconds / escalate_to_roles. A proposal
// still undecided by then mails that group and sends proposal.escalated, once,
// although two instances poll (the suite's and this file's, which has the
// relay); it shows escalated_at and keeps its expiry. The clock is moved by
// writing the proposal's escalation and expiry times, never by sleeping.

let smtp: TestSmtpServer;
let mailer: Awaited<ReturnType<typeof startApp>>;
let receiver: Receiver;
let setup: CrmSetup;
let tenant: Tenant;

beforeAll(async () => {
  // The connector is set up before the second instance starts (one SQLite file, two writers: not this file's subject).
  tenant = await createTenant("pro");
  setup = await setupCrm(tenant);
  smtp = await startSmtpServer();
  receiver = await startReceiver();
  mailer = await startApp({
    ...process.env,
    NODE_ENV: "production",
    ...suiteNetwork(),
    ...outboxTimings(),
    GUICHET_SMTP_URL: smtp.url,
    GUICHET_MAIL_FROM: "Guichet <guichet@example.test>",
  });
  const admin = await tenant.as("admin");
  const hook = await api("/v1/webhook_endpoints", {
    json: { url: receiver.url, events: ["proposal.escalated", "proposal.expired"] },
    as: admin,
  });
  expect(hook.status).toBe(201);
  const current = (await api("/v1/policies", { as: { key: tenant.key } })).body.data;
  const rules = current.rules.map((rule: { id: string }) =>
    rule.id === "external-messages"
      ? { ...rule, ttl_seconds: 3600, escalate_after_seconds: 1800, escalate_to_roles: ["owner"] }
      : rule,
  );
  const put = await api("/v1/policies", { method: "PUT", json: { rules, base_version: current.version }, as: admin });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
});
afterAll(async () => {
  await mailer?.stop();
  await smtp?.close();
  await receiver?.close();
});

async function sendEmail(): Promise<string> {
  const run = await setup.run();
  const asked = await callTool(tenant, run, setup.crm.key("send_email"), {
    to: ["camille.martin@example.com"],
    subject: `Escalade ${Date.now()} ${Math.random()}`,
    body: "Bonjour.",
  });
  expect(asked.error?.code, JSON.stringify(asked)).toBe("APPROVAL_REQUIRED");
  return asked.error.proposal_id as string;
}

/** Moves the proposal's clock: its escalation is due now. */
async function escalationDueNow(id: string) {
  await (await testDb()).proposal.update({ where: { id }, data: { escalateAt: new Date(Date.now() - 1000) } });
}

const escalationMails = (id: string) =>
  smtp.messages.filter((mail) => mail.text.includes(`/approbations/${id}`) && mail.subject.startsWith("Escaladée"));
const hooksFor = (id: string, type: string) =>
  receiver.received.filter((hook) => hook.payload?.type === type && hook.payload.data.proposal === id);

describe("escalation", () => {
  it("mails the second group and sends the webhook once, marks the proposal, and keeps its expiry", async () => {
    const id = await sendEmail();
    const made = await getProposal(tenant, id);
    expect(made).toMatchObject({
      status: "pending",
      escalated_at: null,
      policy: { escalate_after_seconds: 1800, escalate_to_roles: ["owner"] },
    });
    const db = await testDb();
    const row = await db.proposal.findUniqueOrThrow({ where: { id } });
    // Both from the moment the proposal was made: escalation at 30 min, expiry at the rule's hour.
    expect(row.expiresAt.getTime() - row.escalateAt!.getTime()).toBe(1800_000);
    const expiresAt = row.expiresAt.getTime();

    await escalationDueNow(id);
    const escalated = await until(async () => {
      const proposal = await getProposal(tenant, id);
      return proposal.escalated_at && proposal;
    }, "the proposal to be escalated");
    expect(escalated).toMatchObject({ status: "pending", expires_at: made.expires_at });
    const [mail] = await until(async () => escalationMails(id).length > 0 && escalationMails(id), "the mail");
    expect(mail.envelopeTo).toEqual([tenant.emails.owner]);
    expect(mail.text).toContain("elle vous est escaladée");
    await until(async () => hooksFor(id, "proposal.escalated").length > 0, "the webhook");
    expect(hooksFor(id, "proposal.escalated")[0].payload.data).toMatchObject({
      proposal: id,
      status: "pending",
      escalate_to_roles: ["owner"],
      escalated_at: escalated.escalated_at ? expect.any(String) : null,
      expires_at: new Date(expiresAt).toISOString(),
    });

    // A later escalation going out proves both instances polled again since: the first was not sent twice.
    const later = await sendEmail();
    await escalationDueNow(later);
    await until(
      async () => escalationMails(later).length > 0 && hooksFor(later, "proposal.escalated").length > 0,
      "the later escalation",
    );
    expect(escalationMails(id)).toHaveLength(1);
    expect(hooksFor(id, "proposal.escalated")).toHaveLength(1);
    const events = await db.outboxEvent.findMany({
      where: { organizationId: tenant.organizationId, type: "proposal.escalated" },
    });
    expect(events.filter((event) => (event.payload as any).data.proposal === id)).toHaveLength(1);
    expect(await db.auditEvent.count({ where: { action: "proposal.escalated", targetId: id } })).toBe(1);
    expect((await db.proposal.findUniqueOrThrow({ where: { id } })).expiresAt.getTime()).toBe(expiresAt);

    // Silence is still never consent: the proposal expires on time, escalated or not.
    await db.proposal.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await until(async () => hooksFor(id, "proposal.expired").length === 1, "the expiry's webhook");
    expect(await getProposal(tenant, id)).toMatchObject({ status: "expired", escalated_at: escalated.escalated_at });
  });

  it("never escalates a proposal that was decided, or one without an escalation row", async () => {
    const decided = await sendEmail();
    await approveOk(tenant, decided, "approver");
    await escalationDueNow(decided);
    const witness = await sendEmail();
    await escalationDueNow(witness);
    await until(async () => hooksFor(witness, "proposal.escalated").length > 0, "the witness's escalation");
    expect(hooksFor(decided, "proposal.escalated")).toEqual([]);
    expect((await getProposal(tenant, decided)).escalated_at).toBeNull();

    // A write under a row without escalation gets no escalation time at all.
    const run = await setup.run();
    const preview = await callTool(tenant, run, setup.crm.key("preview_address_change"), {
      customer_id: "C-1842",
      destination: { kind: "saved", address_id: "ADDR-3" },
    });
    const plain = await (await testDb()).proposal.findUniqueOrThrow({ where: { id: preview.evidence.proposal.id } });
    expect(plain.escalateAt).toBeNull();
  });

  it("claims each escalation once when several pollers find it due at the same moment", async () => {
    const id = await sendEmail();
    const { escalateDue } = await import("@/lib/proposals/escalation");
    const now = new Date();
    await escalationDueNow(id);
    // Three pollers of this process read the due list together, beside the two instances' own polls.
    const counts = await Promise.all([escalateDue(now), escalateDue(now), escalateDue(now)]);
    expect(counts.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1);
    await until(async () => hooksFor(id, "proposal.escalated").length > 0, "the webhook");
    const db = await testDb();
    const events = await db.outboxEvent.findMany({
      where: { organizationId: tenant.organizationId, type: "proposal.escalated" },
    });
    expect(events.filter((event) => (event.payload as any).data.proposal === id)).toHaveLength(1);
    expect(await db.auditEvent.count({ where: { action: "proposal.escalated", targetId: id } })).toBe(1);
  });
});
