import "server-only";
import { formatMoney, type Money } from "@/lib/proposals/money";
import type { MailMessage } from "@/lib/mail/send";
import { consoleUrl } from "./outbox";

// The e-mail an approver receives when a proposal waits for their role. It says
// what would happen and links to the approval screen, where a signed-in person
// sees the exact change: it never carries a link that approves by itself.

export interface ApprovalPayload {
  proposal: string;
  effect: string;
  amount: Money | null;
  recipients_count: number | null;
  expires_at: string;
  console_url: string;
}

const dateFormat = new Intl.DateTimeFormat("fr-FR", {
  dateStyle: "full",
  timeStyle: "short",
  timeZone: "Europe/Paris",
});

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function approverMail(
  to: string,
  name: string,
  organization: string,
  data: ApprovalPayload,
  /** proposal.escalated: still undecided when its rule said to tell a second group. */
  options: { escalated?: boolean } = {},
): MailMessage {
  const lines = [
    `Bonjour ${name},`,
    "",
    options.escalated
      ? `Une proposition attend toujours une décision dans Guichet (${organization}) : elle vous est escaladée.`
      : `Une proposition attend une décision dans Guichet (${organization}).`,
    "",
    `Effet : ${data.effect}`,
    ...(data.amount ? [`Montant : ${formatMoney(data.amount)}`] : []),
    ...(data.recipients_count !== null ? [`Destinataires : ${data.recipients_count}`] : []),
    `Expire le : ${dateFormat.format(new Date(data.expires_at))} (heure de Paris)`,
    "",
    "Pour l'examiner et décider, connectez-vous à la console :",
    data.console_url,
    "",
    "L'approbation se fait uniquement dans la console, après connexion, sur l'écran qui montre le changement exact.",
    "",
    `Pour ne plus recevoir ces e-mails : ${consoleUrl("/preferences")}`,
  ];
  return {
    to,
    subject: `${options.escalated ? "Escaladée, toujours en attente" : "Approbation demandée"} : ${oneLine(data.effect, 120)}`,
    text: lines.join("\n"),
  };
}
