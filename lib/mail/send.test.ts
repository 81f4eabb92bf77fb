import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSmtpServer, type TestSmtpServer } from "@/tests/api/smtp";
import { createMailTransport, MailDisabledError, mailEnabled, sendMail } from "./send";

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(async () => smtp?.close());

describe("sendMail", () => {
  it("delivers a French message to every recipient over SMTP", async () => {
    const sent = await sendMail(
      {
        to: ["Alice@example.test", "bob@example.test"],
        subject: "Proposition à approuver : adresse de livraison",
        text: "Ouvrir : https://guichet.example.test/approbations/prop_1\nÉchéance : demain",
      },
      createMailTransport(smtp.url),
    );
    expect(sent.accepted).toEqual(["Alice@example.test", "bob@example.test"]);
    expect(smtp.messages).toHaveLength(1);
    const [received] = smtp.messages;
    expect(received.envelopeTo).toEqual(["alice@example.test", "bob@example.test"]);
    expect(received.subject).toBe("Proposition à approuver : adresse de livraison");
    expect(received.text).toContain("Échéance : demain");
    expect(received.links).toEqual(["https://guichet.example.test/approbations/prop_1"]);
    expect(received.envelopeFrom).toBe("guichet@localhost");
  });

  it("throws the relay's refusal when every recipient is refused", async () => {
    smtp.refuse.add("nobody@example.test");
    const before = smtp.messages.length;
    await expect(
      sendMail({ to: "nobody@example.test", subject: "x", text: "x" }, createMailTransport(smtp.url)),
    ).rejects.toThrow(/550/);
    expect(smtp.messages).toHaveLength(before);
  });

  it("is disabled without GUICHET_SMTP_URL", async () => {
    expect(mailEnabled()).toBe(false);
    await expect(sendMail({ to: "a@example.test", subject: "x", text: "x" })).rejects.toBeInstanceOf(MailDisabledError);
  });
});
