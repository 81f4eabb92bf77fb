// Boutique's server-rendered pages, in French. Labels and button names are
// stable: Guichet's browser tests find the fields by « Adresse e-mail » and
// « Mot de passe » and press « Se connecter » then « Autoriser ».

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="fr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} — Boutique</title>
<style>
body{font-family:system-ui,sans-serif;background:#f6f3ee;color:#222;margin:0}
main{max-width:26rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:.5rem;box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{font-size:1.4rem;margin-top:0}
label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem}
button{margin-top:1.2rem;padding:.6rem 1rem;font-size:1rem;cursor:pointer}
.primary{background:#7a3e1d;color:#fff;border:0;border-radius:.3rem}
.error{color:#a40000;font-weight:600}
.hint{color:#555;font-size:.9rem}
</style>
</head>
<body><main>${body}</main></body>
</html>`;
}

export function loginPage(input: {
  uid: string;
  clientName: string;
  accounts: string[];
  email?: string;
  error?: string;
}): string {
  return layout(
    "Connexion",
    `<h1>Connexion à Boutique</h1>
<p><strong>${escape(input.clientName)}</strong> souhaite accéder à vos commandes.</p>
${input.error ? `<p class="error" role="alert">${escape(input.error)}</p>` : ""}
<form method="post" action="/interaction/${escape(input.uid)}/login">
<label for="email">Adresse e-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escape(input.email ?? "")}">
<label for="password">Mot de passe</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button class="primary" type="submit">Se connecter</button>
</form>
<p class="hint">Comptes de démonstration : ${input.accounts.map(escape).join(", ")}.</p>`,
  );
}

export function consentPage(input: {
  uid: string;
  clientName: string;
  accountEmail: string;
  resource: string | null;
}): string {
  return layout(
    "Autorisation",
    `<h1>Autoriser l’accès</h1>
<p>Connecté en tant que <strong>${escape(input.accountEmail)}</strong>.</p>
<p><strong>${escape(input.clientName)}</strong> demande à consulter vos commandes et à les annuler en votre nom${
      input.resource ? ` (ressource <code>${escape(input.resource)}</code>)` : ""
    }.</p>
<form method="post" action="/interaction/${escape(input.uid)}/confirm">
<button class="primary" type="submit">Autoriser</button>
</form>
<form method="post" action="/interaction/${escape(input.uid)}/abort">
<button type="submit">Refuser</button>
</form>`,
  );
}

export function errorPage(code: string, description?: string): string {
  return layout(
    "Erreur",
    `<h1>Une erreur est survenue</h1>
<p class="error">${escape(description ?? "La demande n’a pas pu aboutir.")}</p>
<p class="hint">Code : <code>${escape(code)}</code></p>`,
  );
}
