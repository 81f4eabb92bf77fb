import { auditActionLabels, type AuditEventObject } from "./schemas";

// The audit trail as CSV (RFC 4180: comma-separated, every cell quoted, CRLF),
// for a spreadsheet. Cells hold what people typed (an e-mail tried at sign-in,
// an agent's name), so a cell a spreadsheet would read as a formula is
// neutralised: one starting with = + - @, a tab or a carriage return gets a
// leading apostrophe, which spreadsheets show as text.

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: string | number | null | undefined): string {
  const text = value === null || value === undefined ? "" : String(value);
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  return `"${safe.replace(/"/g, '""')}"`;
}

export function csvRow(cells: Array<string | number | null | undefined>): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}

export const auditCsvHeader = csvRow([
  "date",
  "action",
  "libellé",
  "type d’acteur",
  "acteur",
  "identifiant de l’acteur",
  "type de cible",
  "cible",
  "détails",
]);

const labels: Record<string, string> = auditActionLabels;

export function auditCsvRow(event: AuditEventObject): string {
  return csvRow([
    event.created_at,
    event.action,
    labels[event.action] ?? event.action,
    event.actor.type,
    event.actor.label,
    event.actor.id,
    event.target?.type,
    event.target?.id,
    Object.keys(event.details).length ? JSON.stringify(event.details) : "",
  ]);
}
