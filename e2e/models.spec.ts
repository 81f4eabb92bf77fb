import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { openFromNav } from "./navigation";

// An administrator points a provider of the plan's models at an OpenAI-compatible
// server (the stack's model-sim, under a public test name) with a key, and tests
// the connection: the key is never shown again, the result is typed. The test
// removes the provider afterwards (from the console's origin, as the page would):
// other journeys rely on Acme having no anthropic provider of its own.

test("an admin sets a provider's URL and key, then tests the connection", async ({ pageAs, shot, stack }) => {
  const page = await pageAs("admin");
  await openFromNav(page, "Modèles");
  try {
    await configureAndTest(page, stack.simBaseUrl, shot);
  } finally {
    const removed = await page.evaluate(
      async () => (await fetch("/v1/model_providers/anthropic", { method: "DELETE" })).status,
    );
    expect([200, 404]).toContain(removed);
  }
});

type Shot = (page: Page, name: string) => Promise<void>;

async function configureAndTest(page: Page, simBaseUrl: string, shot: Shot) {
  const card = page.getByRole("region", { name: "anthropic" });
  await expect(card).toContainText("Claude Sonnet");
  await expect(card).toContainText("Non configuré");

  const form = card.getByRole("form", { name: "Réglages du fournisseur anthropic" });
  // SSRF: a metadata address is refused on the URL field.
  await form.getByLabel("URL de base (API compatible OpenAI)").fill("http://169.254.169.254/v1");
  await form.getByRole("button", { name: "Enregistrer" }).click();
  await expect(form.getByText("Les adresses de métadonnées cloud sont toujours refusées.")).toBeVisible();

  const simUrl = `http://sim.test:${new URL(simBaseUrl).port}/v1`;
  await form.getByLabel("URL de base (API compatible OpenAI)").fill(simUrl);
  await form.getByLabel("Clé API").fill("sk-e2e-secret-9876");
  await form.getByRole("button", { name: "Enregistrer" }).click();
  await expect(card).toContainText("Réglé par l’organisation");
  await expect(card).toContainText("enregistrée (…9876)");
  await expect(form.getByLabel("Clé API")).toHaveValue("");
  await expect(page.getByText("sk-e2e-secret-9876")).toHaveCount(0);

  await card.getByRole("button", { name: "Tester la connexion" }).click();
  await expect(card.getByRole("status")).toContainText("Connexion réussie : 1 modèle(s) disponible(s).");
  await expect(card.getByRole("status")).toContainText("HTTP 200");
  await shot(page, "modeles-connexion-testee");
}
