import { escapeHtml, page } from "@/lib/oauth/pages";

// The pages a member's browser sees around a connector sign-in when it cannot go
// back to the console: each names its typed code (for support), in French.

const words: Record<string, string> = {
  connection_state_invalid:
    "Cette demande de connexion est inconnue, déjà utilisée ou expirée. Recommencez depuis Mes connexions.",
  connection_not_yours: "Cette demande de connexion a été commencée par une autre personne ou une autre session.",
  connection_issuer_mismatch:
    "La réponse ne vient pas du serveur d’autorisation de ce connecteur : rien n’a été enregistré.",
  connection_code_missing: "La réponse du connecteur ne contient pas de code d’autorisation : rien n’a été enregistré.",
  connection_denied: "La connexion a été refusée ou annulée sur le connecteur.",
  connection_exchange_failed:
    "Le serveur d’autorisation du connecteur a refusé le code ou n’a pas répondu : rien n’a été enregistré.",
  connection_auth_mismatch: "Ce connecteur ne connecte pas ses membres par OAuth.",
  connection_unavailable: "Le serveur d’autorisation de ce connecteur ne peut pas être utilisé pour le moment.",
  url_not_allowed: "L’adresse du serveur d’autorisation de ce connecteur est refusée par la politique réseau.",
  not_found: "Ce connecteur n’existe pas.",
};

/** A refused connection, typed: the code is in the page (and its `data-error-code`), nothing was stored. */
export function connectionErrorPage(code: string, status: number): Response {
  const text = words[code] ?? "La connexion au connecteur a échoué : rien n’a été enregistré.";
  return page(
    status,
    "Connexion impossible",
    `<h1>Connexion impossible</h1><p data-error-code="${escapeHtml(code)}">${escapeHtml(text)}</p>` +
      `<p><code>${escapeHtml(code)}</code></p><p><a href="/preferences#connexions">Retour à Mes connexions</a></p>`,
  );
}
