import "server-only";
import nodemailer, { type Transporter } from "nodemailer";
import { env } from "@/lib/env";

// Outgoing e-mail through the operator's SMTP relay (GUICHET_SMTP_URL). Without
// it Guichet sends no e-mail at all: features that would mail (approver
// notices, invitations) still work, people just learn of them in the console.
// The URL may hold the relay's password: it is never logged or echoed.

export interface MailMessage {
  to: string | string[];
  subject: string;
  text: string;
  html?: string;
}

export interface SentMail {
  messageId: string;
  accepted: string[];
  rejected: string[];
}

export class MailDisabledError extends Error {
  constructor() {
    super("E-mail is disabled: GUICHET_SMTP_URL is not set.");
    this.name = "MailDisabledError";
  }
}

/** True when an SMTP relay is configured. */
export function mailEnabled(): boolean {
  return Boolean(env.GUICHET_SMTP_URL);
}

/**
 * A transport for one relay URL (`smtp://user:pass@host:587`, `smtps://…` for implicit TLS).
 * Bounded: a relay that does not answer fails the send, so a retry can take over.
 */
export function createMailTransport(url: string): Transporter {
  return nodemailer.createTransport({
    url,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
}

let shared: Transporter | null = null;

function defaultTransport(): Transporter {
  if (!env.GUICHET_SMTP_URL) throw new MailDisabledError();
  shared ??= createMailTransport(env.GUICHET_SMTP_URL);
  return shared;
}

/**
 * Sends one message from GUICHET_MAIL_FROM. Throws MailDisabledError without a relay,
 * and the relay's error when it refuses the message or every recipient.
 */
export async function sendMail(message: MailMessage, transport: Transporter = defaultTransport()): Promise<SentMail> {
  const info = await transport.sendMail({
    from: env.GUICHET_MAIL_FROM,
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
  });
  const addresses = (list: unknown): string[] =>
    Array.isArray(list) ? list.map((entry) => (typeof entry === "string" ? entry : String(entry.address))) : [];
  return { messageId: String(info.messageId), accepted: addresses(info.accepted), rejected: addresses(info.rejected) };
}
