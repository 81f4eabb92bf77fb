import { expect, test } from "./fixtures";
import { openAgentDrawer, openFromNav } from "./navigation";
import type { Page } from "@playwright/test";

// Boutique acts as each member: a member connects their own shop account
// (Guichet's Mes connexions → Boutique's sign-in and consent → back), and
// « Essayer » then lists that account's orders, never another's. A member who
// has not connected sees the tool left out, with « Connecter », and comes back
// to the conversation.

/** Boutique's own pages, as its customer fills them. */
async function signInAtBoutique(page: Page, email: string) {
  await expect(page.getByLabel("Adresse e-mail")).toBeVisible();
  await page.getByLabel("Adresse e-mail").fill(email);
  await page.getByLabel("Mot de passe").fill("boutique-demo");
  await page.getByRole("button", { name: "Se connecter" }).click();
  await page.getByRole("button", { name: "Autoriser" }).click();
}

async function tryAgent(drawer: ReturnType<Page["getByRole"]>, message: string) {
  const panel = drawer.getByTestId("try-panel");
  await panel.getByLabel("Votre message").fill(message);
  await panel.getByRole("button", { name: "Envoyer" }).click();
  return panel;
}

test("a developer connects Boutique from Mes connexions, then « Essayer » lists Dana's orders only", async ({
  pageAs,
  shot,
}) => {
  const page = await pageAs("dev");
  await openFromNav(page, "Préférences");
  const row = page.getByRole("list", { name: "Mes connexions" }).getByRole("listitem").filter({ hasText: "Boutique" });
  await expect(row.getByTestId("connection-state")).toHaveText("Non connecté");
  await row.getByRole("link", { name: "Connecter" }).click();

  await signInAtBoutique(page, "dana@boutique.test");
  await expect(page).toHaveURL(/\/preferences#connexions$/);
  await expect(row.getByTestId("connection-state")).toHaveText("Connecté en tant que dana@boutique.test");
  await shot(page, "mes-connexions-boutique");

  const drawer = await openAgentDrawer(page, "Commandes Boutique");
  await drawer.getByRole("button", { name: "Essayer" }).click();
  const panel = await tryAgent(drawer, "Quelles sont mes commandes ?");
  const answer = panel.getByTestId("try-answer").last();
  await expect(answer).toContainText("Voici vos commandes selon Boutique");
  await expect(answer).toContainText("CMD-1001");
  await expect(answer).not.toContainText("CMD-2001");
  await expect(panel.getByRole("region", { name: "Outils laissés de côté" })).toHaveCount(0);
});

test("an admin without a connection sees the tool left out, connects from « Essayer » and comes back to the conversation", async ({
  pageAs,
}) => {
  const page = await pageAs("admin");
  const drawer = await openAgentDrawer(page, "Commandes Boutique");
  await drawer.getByRole("button", { name: "Essayer" }).click();
  const panel = await tryAgent(drawer, "Mes commandes ?");
  await expect(panel.getByTestId("try-answer").last()).toContainText("n’est pas ouvert à ce run");
  const leftOut = panel.getByRole("region", { name: "Outils laissés de côté" });
  await expect(leftOut).toContainText("connectez d’abord votre compte");
  await leftOut.getByRole("link", { name: "Connecter" }).first().click();

  await signInAtBoutique(page, "leo@boutique.test");
  // Back on the agent, the conversation where it was.
  await expect(page).toHaveURL(/\/agents\?agent=/);
  const back = page.getByRole("dialog");
  await expect(back.getByTestId("try-panel")).toContainText("Mes commandes ?");
  const again = await tryAgent(back, "Et maintenant ?");
  const answer = again.getByTestId("try-answer").last();
  await expect(answer).toContainText("CMD-2001");
  await expect(answer).not.toContainText("CMD-1001");
});
