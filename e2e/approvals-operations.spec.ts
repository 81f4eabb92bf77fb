import { agentRun, crmKeys } from "./agent-calls";
import { expect, test } from "./fixtures";
import { openFromNav, openProposal } from "./navigation";

// Contrôle › Opérations and Politiques: an unknown outcome escalated to an
// operator, who checks the service and resolves it; the policy table read and
// an edit the server refuses row by row.

async function faults(crmBaseUrl: string, body: Record<string, unknown>) {
  const response = await fetch(`${crmBaseUrl}/__control/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.ok).toBe(true);
}

test("an admin resolves an unknown outcome after checking the service", async ({ pageAs, api, stack, shot }) => {
  const { preview, commit: commitKey } = await crmKeys(api);
  const call = await agentRun(api, [preview, commitKey], "Opérations e2e");
  const run = call.runId;
  const customer = (await (await fetch(`${stack.crmBaseUrl}/__control/state`)).json()).customers.find(
    (c: { customer_id: string }) => c.customer_id === "C-3003",
  );
  const proposal = (
    await call(preview, {
      customer_id: "C-3003",
      destination: { kind: "new", line1: "2 rue Neuve", city: "Lille", postal_code: "59000", country: "FR" },
    })
  ).evidence.proposal;
  const approver = await pageAs("approver");
  await openProposal(approver, proposal.id);
  await approver.getByRole("button", { name: "Approuver cette modification" }).click();
  await expect(approver.getByText("Approuvée", { exact: true }).first()).toBeVisible();

  await faults(stack.crmBaseUrl, { cut_after_commit: true, status_down: true });
  let envelope;
  try {
    envelope = await call(commitKey, { proposal_id: proposal.id });
  } finally {
    await faults(stack.crmBaseUrl, { cut_after_commit: false, status_down: false });
  }
  expect(envelope.error.code).toBe("OUTCOME_UNKNOWN");

  const page = await pageAs("admin");
  await openFromNav(page, "Opérations");
  const card = page.getByTestId("unknown-operations").getByRole("listitem").filter({ hasText: run });
  await expect(card).toContainText("Issue inconnue");
  await expect(card.getByRole("list", { name: "Ce que Guichet a constaté" })).toContainText("Demande d’état");
  await shot(page, "operations-issue-inconnue");
  await card.getByRole("button", { name: "Résoudre" }).click();
  await expect(card.getByText("Dites ce que vous avez constaté dans le service.")).toBeVisible();
  await card.getByLabel("L’écriture a bien eu lieu").check();
  await card
    .getByLabel("Ce que vous avez vérifié")
    .fill(`Fiche C-3003 : adresse à Lille, version ${customer.version + 1}.`);
  await card.getByRole("button", { name: "Résoudre" }).click();
  await expect(page.getByTestId("unknown-operations").getByRole("listitem").filter({ hasText: run })).toHaveCount(0);
  await expect(page.getByRole("table", { name: "Opérations récentes" })).toContainText("Réussie");
  await shot(page, "operations-resolue");
  const stored = (await (await api.get(`/v1/proposals/${proposal.id}`)).json()).data;
  expect(stored.status).toBe("consumed");
  expect((await (await api.get(`/v1/runs/${run}`)).json()).data.status).toBe("active");
});

test("an admin reads the policy table and the server refuses an invalid row where it is", async ({ pageAs, shot }) => {
  const page = await pageAs("admin");
  await openFromNav(page, "Politiques");
  const rows = page.getByTestId("policy-rows");
  await expect(rows.getByRole("row", { name: /large-payments/ })).toContainText(
    "2 personnes distinctes (Propriétaire, Administrateur)",
  );
  await expect(rows.getByRole("row", { name: /large-payments/ })).toContainText("montant ≥ 100,00 €");
  await shot(page, "politiques-table");
  await page.getByRole("button", { name: "Modifier" }).click();
  const editor = page.getByLabel("Lignes de la table (JSON, dans l’ordre)");
  const rules = JSON.parse(await editor.inputValue()) as Record<string, unknown>[];
  rules[2] = { ...rules[2], approver_roles: ["viewer"] };
  await editor.fill(JSON.stringify(rules, null, 2));
  const version = await page.getByTestId("policy-version").textContent();
  await page.getByRole("button", { name: /Publier la version/ }).click();
  await expect(page.getByTestId("policy-problems")).toContainText("Ligne 3 · approver_roles[0]");
  await shot(page, "politiques-erreur");
  await page.getByRole("button", { name: "Annuler" }).click();
  await expect(page.getByTestId("policy-version")).toHaveText(version ?? "");
});

test("a viewer cannot resolve nor edit", async ({ pageAs }) => {
  const page = await pageAs("viewer");
  await openFromNav(page, "Politiques");
  await expect(page.getByTestId("policy-rows")).toBeVisible();
  await expect(page.getByRole("button", { name: "Modifier" })).toHaveCount(0);
});
