import { formatMoney, type Money } from "./money";

// What an approver must understand before saying yes, in plain French, built
// only from the stored canonical proposal — never from what the agent said.

export interface ConsequenceFacts {
  action: string | null;
  irreversible: boolean;
  recipients: string[] | null;
  amount: Money | null;
  records_affected: number;
  environment: string;
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString("fr-FR")} ${n > 1 ? many : one}`;

export function consequencesInWords(facts: ConsequenceFacts): string[] {
  const lines: string[] = [];
  if (facts.recipients?.length) {
    lines.push(
      `Un message partira vers ${plural(facts.recipients.length, "destinataire", "destinataires")} hors de l'organisation : une fois envoyé, il ne peut pas être rappelé.`,
    );
  }
  if (facts.amount) {
    lines.push(
      `${formatMoney(facts.amount)} quitteront l'entreprise : les récupérer serait une nouvelle opération, avec sa propre approbation.`,
    );
  }
  if (facts.irreversible && !facts.recipients?.length && !facts.amount) {
    lines.push(
      "Cette écriture ne peut pas être annulée : la corriger demanderait une nouvelle écriture, avec sa propre approbation.",
    );
  }
  if (!facts.irreversible) lines.push("Réversible : une nouvelle proposition pourra rétablir l'état précédent.");
  if (facts.records_affected > 1)
    lines.push(
      `${plural(facts.records_affected, "enregistrement sera modifié", "enregistrements seront modifiés")} d'un seul coup.`,
    );
  if (facts.environment === "production")
    lines.push("Environnement de production : l'effet touche des données réelles, immédiatement.");
  else lines.push(`Environnement « ${facts.environment} » : l'effet reste hors de la production.`);
  return lines;
}
