import type { ModelProviderObject, ModelProviderTestObject } from "@/lib/models/schemas";

export const sourceLabels: Record<ModelProviderObject["source"], string> = {
  organization: "Réglé par l’organisation",
  environment: "Réglé par l’environnement du serveur",
  none: "Non configuré",
};

export const testResultLabels: Record<ModelProviderTestObject["result"], string> = {
  ok: "Connexion réussie",
  not_configured: "Aucune URL ni clé n’est configurée pour ce fournisseur.",
  url_not_allowed: "Adresse refusée par la politique réseau.",
  unauthorized: "Le fournisseur refuse la clé API.",
  unreachable: "Le fournisseur est injoignable.",
  timeout: "Le fournisseur n’a pas répondu à temps.",
  protocol: "La réponse n’est pas celle d’une API compatible OpenAI.",
};
