import type { RunObject } from "@/lib/runs/schemas";

// French words for the run and step states the Journal shows.

export const runStatusLabels: Record<
  RunObject["status"],
  { label: string; tone: "success" | "neutral" | "warning" | "danger" | "info" }
> = {
  active: { label: "Actif", tone: "success" },
  requires_action: { label: "Attend votre serveur", tone: "warning" },
  requires_approval: { label: "Attend une approbation", tone: "warning" },
  suspended: { label: "Suspendu", tone: "warning" },
  cancelled: { label: "Annulé", tone: "neutral" },
  completed: { label: "Terminé", tone: "info" },
  failed: { label: "Échoué", tone: "danger" },
  expired: { label: "Expiré", tone: "neutral" },
};

/** A run outlives its agent: the Journal names the deleted agent this way. */
export const deletedAgentLabel = "Agent supprimé";

export const capabilityLabels: Record<string, string> = { read: "Lecture", read_write: "Lecture et écriture" };

export const dateTime = new Intl.DateTimeFormat("fr-FR", { dateStyle: "short", timeStyle: "medium" });
