import "server-only";
import { db, Prisma } from "@/lib/db";
import { newId } from "@/lib/ids";
import type { CellValue, Column } from "./service";

// Acme's demo data bases for the data tools (list_data_bases, describe_table,
// query_table). Deterministic values; idempotent: a table that already has
// rows is left as it is.

interface SeedTable {
  name: string;
  columns: Column[];
  rows: Record<string, CellValue>[];
}

const regions = ["Île-de-France", "Auvergne-Rhône-Alpes", "Occitanie", "Hauts-de-France"];
const months = Array.from({ length: 12 }, (_, i) => `2026-${String(i + 1).padStart(2, "0")}`);

const monthlySales: SeedTable = {
  name: "ventes_mensuelles",
  columns: [
    { name: "mois", type: "text" },
    { name: "region", type: "text" },
    { name: "chiffre_affaires_eur", type: "integer" },
    { name: "commandes", type: "integer" },
  ],
  rows: months.flatMap((mois, m) =>
    regions.map((region, r) => {
      const commandes = 120 + ((m * 37 + r * 53) % 90) + r * 25;
      return { mois, region, chiffre_affaires_eur: commandes * (84 + ((m + r) % 5) * 7), commandes };
    }),
  ),
};

const products: SeedTable = {
  name: "produits",
  columns: [
    { name: "sku", type: "text" },
    { name: "nom", type: "text" },
    { name: "categorie", type: "text" },
    { name: "prix_eur", type: "number" },
    { name: "stock", type: "integer" },
    { name: "actif", type: "boolean" },
  ],
  rows: [
    ["ACM-001", "Chaise de bureau Ergo", "Mobilier", 189.0, 42, true],
    ["ACM-002", "Bureau réglable 140 cm", "Mobilier", 449.0, 12, true],
    ["ACM-003", "Lampe LED articulée", "Éclairage", 39.9, 230, true],
    ["ACM-004", "Caisson 3 tiroirs", "Mobilier", 129.0, 0, true],
    ["ACM-005", "Repose-pieds", "Accessoires", 24.5, 88, true],
    ["ACM-006", "Support écran double", "Accessoires", 79.0, 61, true],
    ["ACM-007", "Tapis de souris XL", "Accessoires", 14.9, 410, true],
    ["ACM-008", "Lampe halogène (ancienne gamme)", "Éclairage", 29.0, 3, false],
    ["ACM-009", "Armoire haute", "Mobilier", 329.0, 7, true],
    ["ACM-010", "Fauteuil visiteur", "Mobilier", 149.0, 18, true],
    ["ACM-011", "Multiprise parafoudre", "Accessoires", 32.0, 150, true],
    ["ACM-012", "Panneau acoustique", "Aménagement", 99.0, 54, true],
  ].map(([sku, nom, categorie, prix_eur, stock, actif]) => ({ sku, nom, categorie, prix_eur, stock, actif }) as Record<string, CellValue>),
};

const tickets: SeedTable = {
  name: "tickets",
  columns: [
    { name: "ticket", type: "text" },
    { name: "client", type: "text" },
    { name: "sujet", type: "text" },
    { name: "statut", type: "text" },
    { name: "priorite", type: "text" },
    { name: "ouvert_le", type: "date" },
  ],
  rows: [
    ["T-1001", "C-1842", "Adresse de livraison à changer", "ouvert", "normale", "2026-11-02"],
    ["T-1002", "C-2001", "Facture en double", "résolu", "haute", "2026-10-28"],
    ["T-1003", "C-1842", "Remboursement partiel demandé", "ouvert", "haute", "2026-11-05"],
    ["T-1004", "C-2002", "Retard de livraison", "en_attente", "normale", "2026-11-07"],
    ["T-1005", "C-3003", "Question sur la garantie", "résolu", "basse", "2026-10-15"],
    ["T-1006", "C-2001", "Suspendre l'envoi des factures papier", "ouvert", "normale", "2026-11-10"],
    ["T-1007", "C-1842", "Commande incomplète", "en_attente", "haute", "2026-11-12"],
    ["T-1008", "C-2002", "Changement d'e-mail", "résolu", "basse", "2026-09-30"],
  ].map(([ticket, client, sujet, statut, priorite, ouvert_le]) => ({ ticket, client, sujet, statut, priorite, ouvert_le })),
};

const demoBases: { name: string; description: string; tables: SeedTable[] }[] = [
  { name: "ventes", description: "Ventes mensuelles par région et catalogue produits.", tables: [monthlySales, products] },
  { name: "support", description: "Tickets du service client.", tables: [tickets] },
];

export async function seedDemoDataBases(organizationId: string): Promise<void> {
  for (const base of demoBases) {
    const stored = await db.dataBase.upsert({
      where: { organizationId_name: { organizationId, name: base.name } },
      create: { id: newId("db"), organizationId, name: base.name, description: base.description },
      update: {},
    });
    for (const table of base.tables) {
      const storedTable = await db.dataTable.upsert({
        where: { dataBaseId_name: { dataBaseId: stored.id, name: table.name } },
        create: { dataBaseId: stored.id, organizationId, name: table.name, columns: table.columns as unknown as Prisma.InputJsonArray },
        update: {},
      });
      if ((await db.dataRow.count({ where: { tableId: storedTable.id } })) > 0) continue;
      await db.dataRow.createMany({
        data: table.rows.map((values, position) => ({ tableId: storedTable.id, organizationId, position: position + 1, values: values as Prisma.InputJsonObject })),
      });
    }
  }
}
