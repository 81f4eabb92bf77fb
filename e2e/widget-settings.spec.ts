import type { APIRequestContext } from "@playwright/test";
import { expect, test } from "./fixtures";
import { openFromNav } from "./navigation";

// The console's « Widget » page edits the bubble's appearance and limits
// through the widget's PATCH: a refused value is shown under its own field and
// nothing is saved; a good one is stored and the bubble's own page shows it.

async function demoAgentId(api: APIRequestContext): Promise<string> {
  const agents = (await (await api.get("/v1/agents?limit=100")).json()).data as { id: string; name: string }[];
  return agents.find((agent) => agent.name === "Changements d’adresse")!.id;
}

test("appearance and limits are edited in the console, with errors under their fields", async ({
  pageAs,
  api,
  stack,
}) => {
  const name = `Boutique réglages ${Date.now()}`;
  const created = await api.post("/v1/widgets", {
    data: { agent: await demoAgentId(api), name, allowed_origins: ["https://shop.example"] },
  });
  expect(created.status()).toBe(201);
  const widget = (await created.json()).data as { id: string; public_key: string };

  const page = await pageAs("admin");
  await openFromNav(page, "Widget");
  const card = page.getByRole("article", { name: `Widget ${name}` });
  await card.getByRole("button", { name: "Apparence et limites" }).click();
  const form = card.getByRole("form", { name: `Apparence et limites de ${name}` });

  // Refused values: each message under its own field, nothing stored.
  await form.getByLabel("Couleur d’accent").fill("bleu");
  await form.getByLabel("Suggestions de départ").fill(["Un", "Deux", "Trois", "Quatre", "Cinq"].join("\n"));
  await form.getByLabel("Messages par conversation").fill("0");
  await form.getByRole("button", { name: "Enregistrer" }).click();
  await expect(form.getByLabel("Couleur d’accent")).toHaveAttribute("aria-invalid", "true");
  await expect(form.getByLabel("Suggestions de départ")).toHaveAttribute("aria-invalid", "true");
  await expect(form.getByLabel("Messages par conversation")).toHaveAttribute("aria-invalid", "true");
  await expect(form.getByLabel("Titre")).not.toHaveAttribute("aria-invalid", "true");
  let stored = (await (await api.get(`/v1/widgets/${widget.id}`)).json()).data;
  expect(stored.appearance.accent_color).toBe("#1d4ed8");
  expect(stored.limits.messages_per_conversation).toBe(40);

  // Good values: saved through the PATCH.
  await form.getByLabel("Titre").fill("Aide de la boutique");
  await form.getByLabel("Message d’accueil").fill("Bonjour ! Une question sur votre commande ?");
  await form.getByLabel("Couleur d’accent").fill("#0f766e");
  await form.getByLabel("Suggestions de départ").fill("Où est ma commande ?\nChanger mon adresse");
  await form.getByLabel("Position").selectOption("left");
  await form.getByLabel("Langue").selectOption("en");
  await form.getByLabel("Messages par visiteur et par heure").fill("12");
  await form.getByLabel("Messages par conversation").fill("25");
  await form.getByRole("button", { name: "Enregistrer" }).click();
  await expect(page.getByText("Widget enregistré.")).toBeVisible();
  await expect(form).toHaveCount(0);
  stored = (await (await api.get(`/v1/widgets/${widget.id}`)).json()).data;
  expect(stored.appearance).toEqual({
    title: "Aide de la boutique",
    greeting: "Bonjour ! Une question sur votre commande ?",
    starter_prompts: ["Où est ma commande ?", "Changer mon adresse"],
    accent_color: "#0f766e",
    position: "left",
    language: "en",
  });
  expect(stored.limits).toEqual({
    messages_per_visitor_per_hour: 12,
    conversations_per_day: 200,
    messages_per_conversation: 25,
  });

  // The form opens again on what is stored; the bubble's page speaks the new language with the new title.
  await card.getByRole("button", { name: "Apparence et limites" }).click();
  await expect(card.getByLabel("Couleur d’accent")).toHaveValue("#0f766e");
  const frame = await page.request.get(`${stack.baseUrl}/widget/frame?key=${widget.public_key}`);
  const html = await frame.text();
  expect(html).toContain('lang="en"');
  expect(html).toContain("Aide de la boutique");
});
