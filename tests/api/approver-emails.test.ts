import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool } from "./dispatch-fixtures";
import { api, createTenant, suiteNetwork, testDb, until, type Tenant } from "./helpers";
import { getProposal, setupCrm, type CrmSetup } from "./proposals-helpers";
import { outboxTimings, startApp } from "./server";
import { startSmtpServer, type TestSmtpServer } from "./smtp";

// Approver e-mails through a real SMTP server in this process: an instance of
// this file's own has GUICHET_SMTP_URL (the suite's has none, so it leaves the
// e-mails to this one). The mail says what would happen and links to the
// approval screen; it never carries a link that approves.

let smtp: TestSmtpServer;
let mailer: Awaited<ReturnType<typeof startApp>>;
let setup: CrmSetup;
let tenant: Tenant;

beforeAll(async () => {
  // The connector is set up before the second instance starts: on SQLite, two processes writing one file
  // at once (its outbox poll, the tools' review) is a contention this file does not test.
  tenant = await createTenant("pro");
  setup = await setupCrm(tenant);
  smtp = await startSmtpServer();
  mailer = await startApp({
    ...process.env,
    NODE_ENV: "production",
    ...suiteNetwork(),
    ...outboxTimings(),
    GUICHET_SMTP_URL: smtp.url,
    GUICHET_MAIL_FROM: "Guichet <guichet@example.test>",
  });
});
afterAll(async () => {
  await mailer?.stop();
  await smtp?.close();
});

/** A proposal made through the instance that sends e-mail; answers its id and effect. */
async function propose(): Promise<{ id: string; effect: string }> {
  const run = await setup.run();
  const preview = await callTool(
    tenant,
    run,
    setup.crm.key("preview_address_change"),
    { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } },
    mailer.baseUrl,
  );
  expect(preview.ok, JSON.stringify(preview)).toBe(true);
  const id = preview.evidence.proposal.id as string;
  return { id, effect: (await getProposal(tenant, id)).effect as string };
}

const mailsFor = (proposal: string) => smtp.messages.filter((mail) => mail.text.includes(`/approbations/${proposal}`));

describe("approver e-mails", () => {
  it("mails each member whose role the rule names, in French, with the screen's link and no approve link", async () => {
    const { id, effect } = await propose();
    const mails = await until(async () => {
      const found = mailsFor(id);
      return found.length === 3 && found;
    }, "three e-mails");
    expect(mails.flatMap((mail) => mail.envelopeTo).sort()).toEqual(
      [tenant.emails.admin, tenant.emails.approver, tenant.emails.owner].sort(),
    );
    for (const mail of mails) {
      expect(mail.envelopeTo).toHaveLength(1);
      expect(mail.to).toEqual(mail.envelopeTo);
      const flat = effect.replace(/\s+/g, " ").trim();
      // A long effect is cut to 120 characters, the last one an ellipsis.
      expect(mail.subject).toBe(`Approbation demandée : ${flat.length > 120 ? `${flat.slice(0, 119)}…` : flat}`);
      expect(mail.text).toContain(`Effet : ${effect}`);
      expect(mail.text).toMatch(/Expire le : .+ \(heure de Paris\)/);
      expect(mail.links).toContain(`${mailer.baseUrl}/approbations/${id}`);
      for (const link of mail.links) expect(link).not.toMatch(/approve|\/v1\//);
      // No address that approves, anywhere in the message (the greeting may say a member named "approver").
      expect(mail.text + mail.html).not.toMatch(/https?:\/\/\S*approve/i);
      expect(mail.envelopeFrom).toBe("guichet@example.test");
    }
    // The SMTP server holds a mail before the sender records its delivery as succeeded: wait for the record.
    const db = await testDb();
    const succeeded = () =>
      db.outboxDelivery.count({
        where: { organizationId: tenant.organizationId, channel: "email", status: "succeeded" },
      });
    await until(async () => (await succeeded()) === 3, "three deliveries recorded as succeeded");
    expect(await succeeded()).toBe(3);
  });

  it("mails nobody who turned the preference off, and the preference is the signed-in member's own", async () => {
    const admin = await tenant.as("admin");
    const before = await api("/v1/me/preferences", { as: admin });
    expect(before.body.data).toEqual({ approval_emails: true, email_enabled: false });
    const off = await api("/v1/me/preferences", { method: "PATCH", json: { approval_emails: false }, as: admin });
    expect(off.status).toBe(200);
    expect(off.body.data.approval_emails).toBe(false);
    const byKey = await api("/v1/me/preferences", {
      method: "PATCH",
      json: { approval_emails: false },
      as: { key: tenant.key },
    });
    expect(byKey.status).toBe(403);
    const bad = await api("/v1/me/preferences", { method: "PATCH", json: { approval_emails: "non" }, as: admin });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_parameter");

    const { id } = await propose();
    await until(async () => mailsFor(id).length === 2, "two e-mails");
    const db = await testDb();
    // Every delivery of the event is settled, and none was ever made for the admin.
    await until(
      async () =>
        (await db.outboxDelivery.count({
          where: { organizationId: tenant.organizationId, channel: "email", status: "pending" },
        })) === 0,
      "no e-mail pending",
    );
    expect(mailsFor(id).flatMap((mail) => mail.envelopeTo)).not.toContain(tenant.emails.admin);
    expect(
      mailsFor(id)
        .flatMap((mail) => mail.envelopeTo)
        .sort(),
    ).toEqual([tenant.emails.approver, tenant.emails.owner].sort());
    await api("/v1/me/preferences", { method: "PATCH", json: { approval_emails: true }, as: admin });
  });

  it("retries an e-mail the relay refused, and sends it once the relay accepts", async () => {
    smtp.refuse.add(tenant.emails.approver);
    const { id } = await propose();
    const db = await testDb();
    const failing = await until(async () => {
      const row = await db.outboxDelivery.findFirst({
        where: { organizationId: tenant.organizationId, channel: "email", lastError: "smtp", status: "pending" },
      });
      return row && row.attempts >= 2 && row;
    }, "two refused attempts");
    expect(mailsFor(id).flatMap((mail) => mail.envelopeTo)).not.toContain(tenant.emails.approver);
    smtp.refuse.clear();
    await until(
      async () => mailsFor(id).some((mail) => mail.envelopeTo.includes(tenant.emails.approver)),
      "the approver's e-mail after the relay accepts",
    );
    // The relay has the e-mail before the sender records the delivery as done.
    await until(
      async () => (await db.outboxDelivery.findUnique({ where: { id: failing.id } }))?.status === "succeeded",
      "the delivery recorded as succeeded",
    );
  });

  it("mails no deactivated member, whether deactivated before the proposal or while its e-mail waits to be sent", async () => {
    const owner = await tenant.as("owner");
    const members = await api("/v1/members?limit=100", { as: owner });
    const approverId = (members.body.data as { id: string; email: string }[]).find(
      (member) => member.email === tenant.emails.approver,
    )!.id;
    const setActive = async (active: boolean) => {
      const response = await api(`/v1/members/${approverId}`, { method: "PATCH", json: { active }, as: owner });
      expect(response.status).toBe(200);
      expect(response.body.data.status).toBe(active ? "active" : "deactivated");
    };
    const db = await testDb();
    const recipientsOf = (proposal: string) =>
      mailsFor(proposal)
        .flatMap((mail) => mail.envelopeTo)
        .sort();
    try {
      // Deactivated while its e-mail is retried: the next attempt checks the member again and gives up.
      smtp.refuse.add(tenant.emails.approver);
      const waiting = await propose();
      const delivery = await until(
        () =>
          db.outboxDelivery.findFirst({
            where: {
              organizationId: tenant.organizationId,
              memberId: approverId,
              status: "pending",
              lastError: "smtp",
            },
          }),
        "the approver's e-mail refused once",
      );
      await setActive(false);
      smtp.refuse.clear();
      const closed = await until(async () => {
        const row = await db.outboxDelivery.findUnique({ where: { id: delivery.id } });
        return row?.status !== "pending" && row;
      }, "the approver's e-mail settled");
      expect(closed).toMatchObject({ status: "failed", lastError: "not_an_approver" });
      await until(async () => recipientsOf(waiting.id).length === 2, "the active approvers' e-mails");
      expect(recipientsOf(waiting.id)).toEqual([tenant.emails.admin, tenant.emails.owner].sort());

      // Deactivated before the proposal: no e-mail is even planned for them, the active ones are mailed.
      const plannedBefore = await db.outboxDelivery.count({ where: { memberId: approverId } });
      const later = await propose();
      await until(async () => recipientsOf(later.id).length === 2, "two e-mails");
      await until(
        async () =>
          (await db.outboxDelivery.count({
            where: { organizationId: tenant.organizationId, channel: "email", status: "pending" },
          })) === 0,
        "no e-mail pending",
      );
      expect(recipientsOf(later.id)).toEqual([tenant.emails.admin, tenant.emails.owner].sort());
      expect(await db.outboxDelivery.count({ where: { memberId: approverId } })).toBe(plannedBefore);
    } finally {
      smtp.refuse.clear();
      await setActive(true);
    }
  });
});
