import { reasonText, type CatalogEntry } from "@/components/catalog/labels";
import type { ApiClientError, ApiFieldError } from "@/lib/client/errors";

// The API's refusals in the console's words. The codes are the API's; a code
// this table does not know shows the server's own message.

const byCode: Record<string, string> = {
  agent_name_taken: "Un autre agent de l’organisation porte déjà ce nom.",
  model_unavailable: "Ce modèle n’est pas inclus dans votre formule.",
  output_schema_unsupported:
    "Ce modèle ne garantit pas la sortie structurée : retirez le schéma de sortie ou choisissez un autre modèle.",
  duplicate: "Deux outils client ne peuvent pas porter le même nom.",
  reserved_name: "Ce nom est celui d’un outil du catalogue : choisissez-en un autre.",
  unknown_parameter: "Champ inconnu de l’API.",
};

const byFieldAndCode: Record<string, string> = {
  "name:too_small": "Le nom est obligatoire.",
  "name:too_big": "100 caractères au plus.",
  "instructions:too_big": "20 000 caractères au plus.",
  "temperature:too_small": "La température va de 0 à 2.",
  "temperature:too_big": "La température va de 0 à 2.",
  "temperature:invalid_type": "Indiquez un nombre entre 0 et 2.",
  "tools:too_big": "40 outils au plus, outils toujours actifs non compris.",
  "client_tools:too_big": "20 outils client au plus.",
};

function baseField(field: string): string {
  return field.replace(/\[\d+\]/g, "").replace(/\..*$/, "");
}

/** One field error in French. */
export function fieldErrorText(error: ApiFieldError, reason?: CatalogEntry["reason"] | null): string {
  if (error.code === "tool_unavailable") return `Outil indisponible${reason ? ` : ${reasonText(reason)}` : "."}`;
  if (error.code === "unknown_tool") return `${error.message.replace(/^Unknown tool: /, "Outil inconnu : ")}`;
  if (error.code === "invalid_json_schema")
    return `Ce n’est pas un JSON Schema valide. ${error.message.replace(/^Not a valid JSON Schema \(2020-12\): /, "Détail : ")}`;
  return byFieldAndCode[`${baseField(error.field)}:${error.code}`] ?? byCode[error.code] ?? error.message;
}

/** The messages for a field and its sub-fields (tools[3], client_tools[0].name…), prefixed with the path when nested. */
export function fieldErrors(error: ApiClientError | undefined, field: string): string | undefined {
  if (!error) return undefined;
  const reason = (error.reason as CatalogEntry["reason"] | undefined) ?? null;
  const messages = error.errors
    .filter((e) => e.field === field || e.field.startsWith(`${field}.`) || e.field.startsWith(`${field}[`))
    .map((e) => (e.field === field ? fieldErrorText(e, reason) : `${e.field} : ${fieldErrorText(e, reason)}`));
  return messages.length ? messages.join(" ") : undefined;
}

const uploadMessages: Record<string, string> = {
  unsupported_file_type: "Type de fichier non pris en charge : texte, Markdown, CSV, JSON (UTF-8) ou PDF.",
  file_too_large: "Fichier trop volumineux pour votre formule.",
  too_many_documents: "Un agent porte 20 documents au plus : supprimez-en un d’abord.",
  storage_quota_exceeded: "Le quota de fichiers ou de stockage de votre formule est atteint.",
};

export function uploadErrorText(error: ApiClientError): string {
  if (error.code === "file_too_large" && typeof error.reason?.max_bytes === "number") {
    return `Fichier trop volumineux : ${formatBytes(error.reason.max_bytes)} au plus par fichier avec votre formule.`;
  }
  return uploadMessages[error.code] ?? error.message;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} o`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toLocaleString("fr-FR", { maximumFractionDigits: 1 })} Ko`;
  return `${(bytes / 1024 / 1024).toLocaleString("fr-FR", { maximumFractionDigits: 1 })} Mo`;
}
