import { simpleParser, type AddressObject } from "mailparser";
import { SMTPServer } from "smtp-server";

// A real SMTP server in the test process: Guichet's server process (or a unit
// test's transport) delivers to it over TCP, and tests read what arrived.
// Poll `messages` with `until` from the API helpers; never wait a fixed time.

export interface ReceivedMail {
  /** RCPT TO addresses: who the relay was asked to deliver to. */
  envelopeTo: string[];
  envelopeFrom: string;
  /** The To: header's addresses. */
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** Every http(s) URL in the text and HTML parts. */
  links: string[];
}

export interface TestSmtpServer {
  /** smtp://127.0.0.1:PORT, for GUICHET_SMTP_URL. */
  url: string;
  messages: ReceivedMail[];
  /** Recipients the server refuses at RCPT TO (550), to test a relay's refusal. */
  refuse: Set<string>;
  close(): Promise<void>;
}

const URL_PATTERN = /https?:\/\/[^\s<>"')]+/g;

function addressesOf(field: AddressObject | AddressObject[] | undefined): string[] {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  return list.flatMap((entry) => entry.value.map((value) => value.address ?? "")).filter(Boolean);
}

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = [];
  const refuse = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (refuse.has(address.address.toLowerCase())) callback(new Error("550 mailbox unavailable"));
      else callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const text = parsed.text ?? "";
          const html = typeof parsed.html === "string" ? parsed.html : "";
          messages.push({
            envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
            envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: addressesOf(parsed.to).map((address) => address.toLowerCase()),
            subject: parsed.subject ?? "",
            text,
            html,
            links: [...new Set([...text.matchAll(URL_PATTERN), ...html.matchAll(URL_PATTERN)].map((m) => m[0]))],
          });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.server.address();
  if (!address || typeof address !== "object") throw new Error("SMTP server has no port");
  return {
    url: `smtp://127.0.0.1:${address.port}`,
    messages,
    refuse,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
