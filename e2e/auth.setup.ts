import { expect, test as setup } from "@playwright/test";
import { roles, storageState } from "./roles";

// Signs each Acme demo role in once through the real form; specs reuse the session.
for (const role of roles) {
  setup(`sign in as ${role}@acme.test`, async ({ page }) => {
    await page.goto("/connexion");
    await page.getByLabel("Adresse e-mail").fill(`${role}@acme.test`);
    await page.getByLabel("Mot de passe").fill("guichet-demo");
    await page.getByRole("button", { name: "Se connecter" }).click();
    await expect(page).toHaveURL(/\/agents$/);
    await page.context().storageState({ path: storageState(role) });
  });
}
