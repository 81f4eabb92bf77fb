import { expect, test } from "./fixtures";
import { agentRun, crmKeys } from "./agent-calls";
import { openFromNav, openProposal } from "./navigation";

// Contrôle › Approbations: an approver reads what an agent's writes would do —
// the diff, the amount, the recipients — refuses one with a reason, approves
// another, and watches a third run out of time. All three are real proposals
// made through the dispatcher against the demo's CRM Acme.

test("an approver reads the effect, refuses one write with a reason, approves another and sees a third expire", async ({
  pageAs,
  api,
  shot,
}) => {
  const keys = await crmKeys(api);
  const call = await agentRun(api, Object.values(keys));
  const email = await call(keys.email, {
    to: ["camille.martin@example.com", "service.client@example.com"],
    subject: "Votre remboursement",
    body: "Bonjour Camille, nous vous remboursons 25 €.",
    customer_id: "C-1842",
  });
  expect(email.error.code).toBe("APPROVAL_REQUIRED");
  const refund = await call(keys.refund, {
    payment_id: "PAY-9002",
    amount: { value_minor: 2_500, currency: "EUR" },
    reason: "Colis arrivé abîmé",
  });
  expect(refund.error.code).toBe("APPROVAL_REQUIRED");

  const page = await pageAs("approver");
  await openFromNav(page, "Approbations");
  await expect(page.getByRole("heading", { name: "Approbations", level: 1 })).toBeVisible();
  const pending = page.getByTestId("pending-list");
  await expect(pending.getByRole("link", { name: /Envoyer le courriel « Votre remboursement »/ })).toBeVisible();
  await expect(pending.getByRole("row", { name: /Rembourser/ })).toContainText("25,00 €");

  // Live: a proposal made now appears without reloading, and the count in the navigation follows.
  const address = await call(keys.preview, {
    customer_id: "C-1842",
    destination: { kind: "saved", address_id: "ADDR-2" },
  });
  expect(address.evidence.proposal.status).toBe("pending");
  // Other journeys may leave C-1842 proposals waiting too: this one is found by its id.
  await expect(pending.locator(`a[href$="/approbations/${address.evidence.proposal.id}"]`)).toHaveText(
    /Remplacer l’adresse de livraison du client C-1842/,
  );
  const badge = page.getByRole("navigation", { name: "Navigation principale" }).getByTestId("pending-count");
  await expect.poll(async () => Number((await badge.textContent())?.match(/\d+/)?.[0] ?? 0)).toBeGreaterThanOrEqual(3);
  await shot(page, "approbations-inbox");

  // The e-mail: recipients and what cannot be undone, then a refusal that needs a reason.
  await pending.getByRole("link", { name: /Envoyer le courriel/ }).click();
  await expect(page.getByTestId("effect")).toContainText("Envoyer le courriel « Votre remboursement »");
  const recipients = page.getByRole("list", { name: "Destinataires" });
  await expect(recipients.getByRole("listitem")).toHaveText([
    "camille.martin@example.com",
    "service.client@example.com",
  ]);
  await expect(page.getByTestId("consequences")).toContainText("il ne peut pas être rappelé");
  await expect(page.getByTestId("quorum")).toContainText("0 approbation sur 1 requise");
  await page.getByRole("button", { name: "Refuser" }).click();
  await expect(page.getByText("Indiquez la raison du refus")).toBeVisible();
  await page.getByLabel("Raison du refus").fill("Le montant n'est pas encore validé par la comptabilité.");
  await shot(page, "approbation-courriel-refus");
  await page.getByRole("button", { name: "Refuser" }).click();
  await expect(page.getByText("Refusée", { exact: true }).first()).toBeVisible();
  await expect(page.getByRole("list", { name: "Décisions" })).toContainText(
    "« Le montant n'est pas encore validé par la comptabilité. »",
  );
  await expect(page.getByRole("button", { name: "Approuver cette modification" })).toBeDisabled();

  // The refund: the amount in French, then an approval.
  await openProposal(page, refund.error.proposal_id);
  await expect(page.getByTestId("amount")).toHaveText(/^25,00\s€$/);
  await expect(page.getByTestId("consequences")).toContainText("quitteront l'entreprise");
  await page.getByRole("button", { name: "Approuver cette modification" }).click();
  await expect(page.getByText("Approuvée", { exact: true }).first()).toBeVisible();
  await shot(page, "approbation-remboursement-approuve");

  const decided = await Promise.all(
    [email.error.proposal_id, refund.error.proposal_id].map(
      async (id: string) => (await (await api.get(`/v1/proposals/${id}`)).json()).data,
    ),
  );
  expect(decided[0]).toMatchObject({
    status: "refused",
    decisions: [{ decision: "refuse", reason: "Le montant n'est pas encore validé par la comptabilité." }],
  });
  expect(decided[1]).toMatchObject({ status: "approved", approvals: { count: 1, required: 1 } });
  const committed = await call(keys.refund, { proposal_id: refund.error.proposal_id });
  expect(committed).toMatchObject({
    ok: true,
    result: { payment_id: "PAY-9002", amount: { value_minor: 2_500, currency: "EUR" } },
  });

  // The address change: before and after per field; then the clock runs out and the decision closes.
  const clocked = await pageAs("approver");
  await clocked.clock.install();
  // A direct load: the fake clock has to be in place before the page starts its timers.
  await clocked.goto(`/approbations/${address.evidence.proposal.id}`);
  const diff = clocked.getByRole("table", { name: "Champs modifiés : avant et après" });
  await expect(diff.getByRole("row", { name: /Adresse de livraison/ })).toContainText(
    "8 rue des Lilas, 75011 Paris, FR",
  );
  await expect(diff.getByRole("row", { name: /Adresse de livraison/ })).toContainText(
    "24 quai Saint-Antoine, 69002 Lyon, FR",
  );
  // What the write reaches: CRM Acme's production data, one customer record.
  await expect(clocked.getByTestId("environment")).toHaveText("Production");
  await expect(clocked.getByTestId("records")).toHaveText("1");
  await expect(clocked.getByTestId("countdown")).toContainText(/Expire dans (59 min|1 h)/);
  await expect(clocked.getByRole("button", { name: "Approuver cette modification" })).toBeEnabled();
  await shot(clocked, "approbation-adresse-diff");
  await clocked.clock.fastForward("01:00:05");
  await expect(clocked.getByTestId("countdown")).toHaveText("Expirée");
  await expect(clocked.getByRole("button", { name: "Approuver cette modification" })).toBeDisabled();
  await expect(clocked.getByRole("button", { name: "Refuser" })).toBeDisabled();
  await expect(clocked.getByText("Le délai est écoulé")).toBeVisible();
  await shot(clocked, "approbation-adresse-expiree");
});

test("a viewer sees why they cannot decide", async ({ pageAs, api }) => {
  const keys = await crmKeys(api);
  const call = await agentRun(api, [keys.preview, keys.commit]);
  const preview = await call(keys.preview, {
    customer_id: "C-2001",
    destination: { kind: "saved", address_id: "ADDR-5" },
  });
  const page = await pageAs("viewer");
  await openProposal(page, preview.evidence.proposal.id);
  await expect(
    page.getByText("réserve cette décision aux rôles : Propriétaire, Administrateur, Approbateur"),
  ).toBeVisible();
  await expect(page.getByRole("button", { name: "Approuver cette modification" })).toBeDisabled();
});

test("a stale card is flagged and refused as stale in one click; superseded and expired cards leave the inbox live", async ({
  pageAs,
  api,
  shot,
}) => {
  const keys = await crmKeys(api);
  const first = await agentRun(api, [keys.preview, keys.commit]);
  const second = await agentRun(api, [keys.preview, keys.commit]);
  const newAddress = (line1: string) => ({
    customer_id: "C-2002",
    destination: { kind: "new", line1, city: "Nantes", postal_code: "44000", country: "FR" },
  });
  const committed = (await first(keys.preview, newAddress("1 quai de la Fosse"))).evidence.proposal;
  const replaced = (await second(keys.preview, newAddress("2 rue Crébillon"))).evidence.proposal;

  const page = await pageAs("approver");
  await openFromNav(page, "Approbations");
  const pending = page.getByTestId("pending-list");
  const card = (id: string) => pending.getByRole("row").filter({ has: page.locator(`a[href$="/approbations/${id}"]`) });
  await expect(card(replaced.id)).toBeVisible();
  await expect(card(replaced.id)).toContainText(/Approbations e2e \d+/);
  await expect(card(replaced.id)).toContainText("clé API « ");

  // The second run moves on to another address: its older card leaves the list without a reload.
  const stale = (await second(keys.preview, newAddress("3 place Royale"))).evidence.proposal;
  await expect(card(stale.id)).toBeVisible();
  await expect(card(replaced.id)).toHaveCount(0);
  await expect(card(stale.id)).not.toContainText("La fiche a changé depuis cette proposition");

  // The first run's change is approved and committed: the second's card is now stale.
  await openProposal(page, committed.id);
  await page.getByRole("button", { name: "Approuver cette modification" }).click();
  await expect(page.getByText("Approuvée", { exact: true }).first()).toBeVisible();
  expect((await first(keys.commit, { proposal_id: committed.id })).ok).toBe(true);
  await openFromNav(page, "Approbations");
  await expect(card(stale.id)).toContainText("La fiche a changé depuis cette proposition");
  await shot(page, "approbations-inbox-fiche-changee");

  // Its screen says why approving would fail, in French, with the requester named; one click refuses it.
  await card(stale.id).getByRole("link").first().click();
  await expect(page.getByTestId("stale-notice")).toContainText(
    "le service refuserait l’écriture au moment de l’exécution",
  );
  const diff = page.getByRole("table", { name: "Champs modifiés : avant et après" });
  await expect(diff.getByTitle("shipping_address")).toHaveText("Adresse de livraison");
  await expect(page.getByTestId("effect")).toContainText(
    "Remplacer l’adresse de livraison du client C-2002 (Léa Dubois)",
  );
  await expect(page.getByTestId("requester")).toContainText(/Approbations e2e \d+/);
  await expect(page.getByTestId("requester")).toContainText("clé API « ");
  await shot(page, "approbation-fiche-changee");
  await page.getByRole("button", { name: "Refuser comme périmée" }).click();
  await expect(page.getByText("Refusée", { exact: true }).first()).toBeVisible();
  await expect(page.getByRole("list", { name: "Décisions" })).toContainText(
    "la fiche a changé depuis cette proposition",
  );
  expect((await (await api.get(`/v1/proposals/${stale.id}`)).json()).data).toMatchObject({
    status: "refused",
    stale: false,
  });
});

test("a card leaves the inbox the moment it expires, without a reload", async ({ pageAs, api }) => {
  const keys = await crmKeys(api);
  const call = await agentRun(api, [keys.preview, keys.commit]);
  const proposal = (
    await call(keys.preview, { customer_id: "C-2001", destination: { kind: "saved", address_id: "ADDR-5" } })
  ).evidence.proposal;
  const page = await pageAs("approver");
  await page.clock.install();
  // A direct load: the fake clock has to be in place before the page starts its timers.
  await page.goto("/approbations");
  const row = page.getByTestId("pending-list").locator(`a[href$="/approbations/${proposal.id}"]`);
  await expect(row).toBeVisible();
  await page.clock.fastForward("01:00:05");
  await expect(row).toHaveCount(0);
  await expect(page.getByRole("heading", { name: /En attente de décision/ })).toBeVisible();
});
