import { describe, expect, it } from "vitest";
import { consequencesInWords } from "./consequences";

const plain = (lines: string[]) => lines.map((l) => l.replace(/[\u202f\u00a0]/g, " "));

describe("consequences in words", () => {
  it("says an e-mail cannot be recalled", () => {
    const lines = consequencesInWords({
      action: "message",
      irreversible: true,
      recipients: ["a@x.fr", "b@x.fr"],
      amount: null,
      records_affected: 1,
      environment: "production",
    });
    expect(lines[0]).toBe(
      "Un message partira vers 2 destinataires hors de l'organisation : une fois envoyé, il ne peut pas être rappelé.",
    );
    expect(lines).toContain("Environnement de production : l'effet touche des données réelles, immédiatement.");
  });

  it("says money leaves, with the amount in French", () => {
    const lines = plain(
      consequencesInWords({
        action: "payment",
        irreversible: true,
        recipients: null,
        amount: { value_minor: 2_500, currency: "EUR" },
        records_affected: 1,
        environment: "production",
      }),
    );
    expect(lines[0]).toBe(
      "25,00 € quitteront l'entreprise : les récupérer serait une nouvelle opération, avec sa propre approbation.",
    );
  });

  it("says how many records a bulk change touches and that it is reversible", () => {
    const lines = plain(
      consequencesInWords({
        action: "update",
        irreversible: false,
        recipients: null,
        amount: null,
        records_affected: 1200,
        environment: "sandbox",
      }),
    );
    expect(lines).toEqual([
      "Réversible : une nouvelle proposition pourra rétablir l'état précédent.",
      "1 200 enregistrements seront modifiés d'un seul coup.",
      "Environnement « sandbox » : l'effet reste hors de la production.",
    ]);
  });

  it("warns about an irreversible write of an unknown kind", () => {
    expect(
      consequencesInWords({
        action: null,
        irreversible: true,
        recipients: null,
        amount: null,
        records_affected: 1,
        environment: "production",
      })[0],
    ).toMatch(/ne peut pas être annulée/);
  });
});
