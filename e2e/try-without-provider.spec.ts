import { expect, test } from "./fixtures";
import { openAgentDrawer } from "./navigation";

// « Essayer » on an agent whose model has no provider configured: the stack's
// model simulator serves the Mistral models only (GUICHET_MODEL_MISTRAL_BASE_URL),
// so an agent on Claude Sonnet (provider « anthropic », nothing configured) is
// refused by POST /v1/runs with 503 model_provider_unavailable. No run exists:
// the panel says so in French and names what to configure, never that a run stopped.

const claudeSonnet = "mdl_01jz8claudesonnet000000000";

test("« Essayer » without a model provider says in French what to configure, not that a run stopped", async ({
  pageAs,
  api,
  shot,
}) => {
  const name = `Sans fournisseur ${Date.now()}`;
  const created = await api.post("/v1/agents", { data: { name, model: claudeSonnet } });
  expect(created.status(), await created.text()).toBe(201);
  const refused = await api.post("/v1/runs", { data: { agent: (await created.json()).data.id, input: "Bonjour" } });
  expect(refused.status()).toBe(503);
  expect((await refused.json()).error.code).toBe("model_provider_unavailable");

  const page = await pageAs("dev");
  const drawer = await openAgentDrawer(page, name);
  await drawer.getByRole("button", { name: "Essayer", exact: true }).click();
  const panel = drawer.getByTestId("try-panel");
  await panel.getByLabel("Votre message").fill("Bonjour");
  await panel.getByRole("button", { name: "Envoyer" }).click();

  const alert = panel.getByRole("alert");
  await expect(alert).toContainText("Aucun fournisseur n’est configuré pour le modèle de cet agent");
  await expect(alert).toContainText("anthropic");
  await expect(alert).toContainText("Développeurs › Modèles");
  await expect(alert).toContainText("GUICHET_MODEL_ANTHROPIC_API_KEY");
  await expect(alert).toContainText("aucun run n’a démarré");
  // Not the API's English sentence, and no run shown as stopped.
  await expect(panel).not.toContainText("No provider is configured");
  await expect(panel).not.toContainText("s’est arrêté");
  await expect(panel.getByTestId("try-status")).toHaveCount(0);
  // The conversation stays; the person can send again once the provider is set.
  await expect(panel.getByText("Bonjour", { exact: true })).toBeVisible();
  await expect(panel.getByRole("button", { name: "Envoyer" })).toBeEnabled();
  await shot(page, "essayer-sans-fournisseur");
});
