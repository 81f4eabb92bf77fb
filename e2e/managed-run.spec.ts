import { expect, test } from "./fixtures";
import { openAgentDrawer, openProposal } from "./navigation";

// The managed-run demo, as a newcomer sees it after `npm start`: a developer
// tries the seeded address-change agent (model-sim plays the model with the
// demo's script), the run streams its steps and waits; an approver, in another
// browser, approves; the developer's panel then shows the commit and the
// answer without a reload, and CRM Acme holds exactly one write.

test("a developer tries an agent: the run reads, proposes and waits; an approver approves; it commits once and answers", async ({
  pageAs,
  api,
  shot,
  stack,
}) => {
  test.setTimeout(120_000);
  const dev = await pageAs("dev");
  const drawer = await openAgentDrawer(dev, "Changements d’adresse");
  await drawer.getByRole("button", { name: "Essayer", exact: true }).click();
  const panel = drawer.getByTestId("try-panel");
  await panel
    .getByLabel("Votre message")
    .fill("Le client C-1842 a déménagé : livrez-le désormais à son adresse de Lyon.");
  await panel.getByRole("button", { name: "Envoyer" }).click();

  // Streamed: the model's words, the read, then the proposal — and the run waits for people.
  const steps = panel.getByTestId("try-step");
  await expect(steps.nth(0)).toContainText(/mcp_\d+_get_customer — réussi/);
  await expect(steps.nth(1)).toContainText(/mcp_\d+_preview_address_change — réussi/);
  await expect(panel.getByTestId("try-answer").first()).toContainText("Je consulte la fiche du client C-1842");
  const status = panel.getByTestId("try-status");
  await expect(status).toContainText("En attente d’approbation");
  const card = panel.getByTestId("try-proposal");
  await expect(card).toContainText("C-1842");
  await expect(card).toContainText("En attente");
  await card.scrollIntoViewIfNeeded();
  await shot(dev, "essayer-en-attente-approbation");
  const runId = (await status.locator("code").textContent())!.trim();
  const waiting = (await (await api.get(`/v1/runs/${runId}`)).json()).data;
  expect(waiting).toMatchObject({ status: "requires_approval", pending_proposals: [expect.any(String)] });
  const crmWrites = async () =>
    (
      (await (await fetch(`${stack.crmBaseUrl}/__control/state`)).json()).operations as Array<Record<string, unknown>>
    ).filter((op) => String(op.idempotency_key).startsWith(`${runId}:`));
  expect(await crmWrites()).toEqual([]);

  // The approver, in a browser of their own.
  const approver = await pageAs("approver");
  await openProposal(approver, waiting.pending_proposals[0]);
  await expect(approver.getByTestId("effect")).toContainText("C-1842");
  await approver.getByRole("button", { name: "Approuver cette modification" }).click();
  await expect(approver.getByText("Approuvée", { exact: true }).first()).toBeVisible();

  // The developer's panel follows by itself: the commit, then the answer.
  await expect(steps.nth(2)).toContainText(/mcp_\d+_commit_address_change — réussi/, { timeout: 30_000 });
  await expect(status).toContainText("Run terminé.", { timeout: 30_000 });
  await expect(panel.getByTestId("try-answer").last()).toContainText("J’ai demandé le changement d’adresse");
  await expect(steps).toHaveCount(3);
  await panel.getByTestId("try-answer").last().scrollIntoViewIfNeeded();
  await shot(dev, "essayer-run-termine");

  const writes = await crmWrites();
  expect(writes).toHaveLength(1);
  expect(writes[0]).toMatchObject({ status: "succeeded" });
  expect((await (await api.get(`/v1/runs/${runId}`)).json()).data).toMatchObject({
    status: "completed",
    output: { text: expect.stringContaining("J’ai demandé le changement d’adresse") },
  });
});
