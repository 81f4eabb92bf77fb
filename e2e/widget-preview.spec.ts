import type { APIRequestContext } from "@playwright/test";
import { createScript } from "@/connectors/model-sim/control";
import { expect, test } from "./fixtures";
import { openFromNav } from "./navigation";

// Développeurs › Widget › « Aperçu »: the real bubble (widget.js and its frame)
// on a page Guichet serves, although Guichet's own origin is not among the
// widget's origins. A starter prompt streams the model's answer in the bubble;
// a saved appearance shows in the preview without reloading the console; the
// conversation is listed as a preview.

async function demoAgentId(api: APIRequestContext): Promise<string> {
  const agents = (await (await api.get("/v1/agents?limit=100")).json()).data as { id: string; name: string }[];
  return agents.find((agent) => agent.name === "Changements d’adresse")!.id;
}

test("« Aperçu » shows the real bubble: a starter prompt streams, a saved appearance follows, the conversation is marked", async ({
  pageAs,
  api,
  stack,
}) => {
  test.setTimeout(120_000);
  const answerText = "Bonjour ! Votre commande C-1842 part demain matin.";
  const script = await createScript(stack.simBaseUrl, { turns: [{ text: answerText }] });
  const name = `Boutique aperçu ${Date.now()}`;
  const created = await api.post("/v1/widgets", {
    data: {
      agent: await demoAgentId(api),
      name,
      allowed_origins: ["https://shop.example"],
      instructions: script.marker,
      appearance: { title: "Aide boutique", starter_prompts: ["Où est ma commande ?"] },
    },
  });
  expect(created.status()).toBe(201);

  const page = await pageAs("dev");
  await openFromNav(page, "Widget");
  const card = page.getByRole("article", { name: `Widget ${name}` });
  await card.getByRole("button", { name: "Aperçu" }).click();
  const previewFrame = card.locator(`iframe[title="Aperçu du widget ${name}"]`);
  // The bubble sits at the bottom of the preview page, as on a customer's site: bring the whole preview into view.
  await previewFrame.scrollIntoViewIfNeeded();
  const preview = previewFrame.contentFrame();
  const launcher = preview.locator("[data-guichet-widget] > button");
  // The loader names the launcher after the widget's title once its preview session is open.
  await expect(launcher).toHaveAttribute("aria-label", "Aide boutique");
  await launcher.click();
  const bubble = preview.frameLocator("[data-guichet-widget] iframe");
  await expect(bubble.getByRole("heading", { name: "Aide boutique" })).toBeVisible();
  await bubble.getByRole("button", { name: "Où est ma commande ?" }).click();
  await expect(bubble.getByRole("log")).toContainText(answerText, { timeout: 30_000 });

  // A saved appearance reaches the preview without reloading the console page.
  const marker = await page.evaluate(() => {
    (window as unknown as { __stay?: number }).__stay = 1;
    return 1;
  });
  await card.getByRole("button", { name: "Apparence et limites" }).click();
  const form = card.getByRole("form", { name: `Apparence et limites de ${name}` });
  await form.getByLabel("Titre").fill("Service client");
  await form.getByLabel("Couleur d’accent").fill("#0f766e");
  await form.getByLabel("Suggestions de départ").fill("Changer mon adresse");
  await form.getByRole("button", { name: "Enregistrer" }).click();
  await expect(page.getByText("Widget enregistré.")).toBeVisible();
  await expect(launcher).toHaveAttribute("aria-label", "Service client");
  await previewFrame.scrollIntoViewIfNeeded();
  await expect(launcher).toHaveCSS("background-color", "rgb(15, 118, 110)");
  await launcher.click();
  await expect(bubble.getByRole("heading", { name: "Service client" })).toBeVisible();
  await expect(bubble.getByRole("button", { name: "Changer mon adresse" })).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { __stay?: number }).__stay)).toBe(marker);

  // The conversation is the organization's like any other, marked as a preview.
  await card.getByRole("button", { name: "Conversations" }).click();
  const row = card.getByRole("listitem").filter({ hasText: "Aperçu ·" });
  await expect(row).toHaveCount(1);
  await expect(row.getByText("Aperçu", { exact: true })).toBeVisible();
  await expect(card.getByTestId("widget-usage")).toContainText("(dont 1 en aperçu)");
});
