import { expect, test } from "./fixtures";
import { openFromNav } from "./navigation";

// An administrator connects the reference CRM Acme server, syncs it, reviews a
// tool, and sees it become available in "Outils" while the unreviewed ones stay
// refused with the reason in words.

test("connect, sync, review a tool, and see it available in Outils", async ({ pageAs, shot, stack }) => {
  const page = await pageAs("admin");
  await openFromNav(page, "Connecteurs MCP");
  await expect(page.getByRole("heading", { name: "Connecteurs MCP" })).toBeVisible();
  // The demo organization is already connected to CRM Acme, synced and reviewed.
  await expect(page.locator('tr[data-server="CRM Acme"]')).toContainText("11 outils");

  // SSRF: a metadata address is refused on the URL field, nothing is added.
  const form = page.getByRole("form", { name: "Nouveau connecteur" });
  await form.getByLabel("Nom").fill("Métadonnées");
  await form.getByLabel("URL MCP (Streamable HTTP)").fill("http://169.254.169.254/mcp");
  await form.getByRole("button", { name: "Ajouter le connecteur" }).click();
  await expect(form.getByText("Les adresses de métadonnées cloud sont toujours refusées.")).toBeVisible();
  await expect(page.locator('tr[data-server="Métadonnées"]')).toHaveCount(0);

  await form.getByLabel("Nom").fill("CRM e2e");
  await form.getByLabel("URL MCP (Streamable HTTP)").fill(stack.crmUrl);
  await form.getByRole("button", { name: "Ajouter le connecteur" }).click();
  const row = page.locator('tr[data-server="CRM e2e"]');
  await expect(row).toContainText("0 outil");

  await row.getByRole("button", { name: "Synchroniser CRM e2e" }).click();
  await expect(row).toContainText("11 outils");
  await expect(row).toContainText("11 à revoir");
  await shot(page, "connecteurs-synced");

  await row.getByRole("button", { name: "Outils et revue de CRM e2e" }).click();
  const drawer = page.getByRole("dialog", { name: "Outils de CRM e2e" });
  const card = drawer.locator('li[data-tool-name="get_customer"]');
  await expect(card).toContainText("À revoir");
  await expect(card).toContainText("Nouvel outil : tout est à lire");
  await expect(card.getByLabel("Schéma d’entrée")).toContainText("customer_id");
  // customer_id has only a pattern: the contract Guichet publishes carries its own maximum length, shown here.
  const bounds = card.getByTestId("guichet-bounds");
  await bounds.getByText("Bornes ajoutées par Guichet (1)").click();
  await expect(bounds).toContainText(/\/properties\/customer_id : longueur maximale 4\s?096/);
  await expect(card.getByTestId("live-fact-enum")).toHaveCount(0);
  // The annotations say read-only: the form is pre-filled accordingly, the person decides.
  await expect(card.getByRole("checkbox", { name: /modifie des données/ })).not.toBeChecked();
  await expect(
    drawer.locator('li[data-tool-name="send_email"]').getByRole("checkbox", { name: /modifie des données/ }),
  ).toBeChecked();
  await shot(page, "connecteurs-review");
  await card.getByRole("button", { name: "Valider la revue" }).click();
  await expect(card).toContainText("Revu");
  await page.keyboard.press("Escape");
  await expect(row).toContainText("10 à revoir");

  await page.getByRole("link", { name: "Outils", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Outils" })).toBeVisible();
  await page.getByLabel("Type").selectOption("mcp");
  const reviewed = page.getByRole("row", { name: /CRM e2e — get_customer/ });
  await expect(reviewed).toContainText("Disponible");
  await expect(reviewed).toContainText("Lecture seule");
  const waiting = page.getByRole("row", { name: /CRM e2e — send_email/ });
  await expect(waiting).toContainText("Indisponible");
  await expect(waiting).toContainText("Cet outil est nouveau ou a changé depuis sa dernière revue");
  await expect(waiting).toContainText("Écrit des données");
  await shot(page, "outils-after-review");

  await reviewed.getByRole("button", { name: /Détails/ }).click();
  const detail = page.getByRole("dialog", { name: "CRM e2e — get_customer" });
  await expect(detail).toContainText("CRM e2e");
  await expect(detail.getByLabel("Schéma d’entrée")).toContainText("customer_id");
  await expect(detail.getByLabel("Schéma de sortie")).toContainText("saved_addresses");
  await shot(page, "outils-detail");
});

test("Outils shows forced tools as always on and filters by availability", async ({ pageAs, shot }) => {
  const page = await pageAs("dev");
  await openFromNav(page, "Outils");
  await expect(page.getByRole("row", { name: /Web search/ })).toContainText("Toujours actif");
  await page.getByLabel("Disponibilité").selectOption("unavailable");
  await expect(page.getByRole("row", { name: /Web search/ })).toHaveCount(0);
  await page.getByLabel("Disponibilité").selectOption("available");
  await page.getByLabel("Effet").selectOption("writes");
  // The demo connector's reviewed write tools, and nothing that only reads.
  await expect(page.getByRole("row", { name: /CRM Acme — commit_address_change/ })).toContainText("Écrit des données");
  await expect(page.getByRole("row", { name: /CRM Acme — get_customer/ })).toHaveCount(0);
  await expect(page.getByRole("row", { name: /Web search/ })).toHaveCount(0);
  await shot(page, "outils-filters");
});

test("Connecteurs MCP is for owners and admins only", async ({ pageAs }) => {
  const page = await pageAs("viewer");
  await openFromNav(page, "Connecteurs MCP");
  await expect(page.getByText("Seuls les propriétaires et les administrateurs")).toBeVisible();
  await expect(page.getByRole("form", { name: "Nouveau connecteur" })).toHaveCount(0);
});
