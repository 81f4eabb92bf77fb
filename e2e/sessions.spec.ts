import type { Browser, Page } from "@playwright/test";
import { expect, test } from "./fixtures";

// A person signed in on two devices ends both sessions from one: the other
// device is sent back to the sign-in page at its next request. Uses Globex's
// admin, whom no other spec keeps signed in.

async function signInFresh(browser: Browser, email: string, password = "guichet-demo"): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto("/connexion");
  await page.getByLabel("Adresse e-mail").fill(email);
  await page.getByLabel("Mot de passe").fill(password);
  await page.getByRole("button", { name: "Se connecter" }).click();
  return page;
}

test("Se déconnecter partout ends the sessions on every device", async ({ browser }) => {
  const laptop = await signInFresh(browser, "admin@globex.test");
  await expect(laptop).toHaveURL(/\/agents$/);
  const phone = await signInFresh(browser, "admin@globex.test");
  await expect(phone).toHaveURL(/\/agents$/);

  await laptop.getByRole("button", { name: "Se déconnecter partout" }).click();
  await expect(laptop).toHaveURL(/\/connexion/);
  await phone.reload();
  await expect(phone).toHaveURL(/\/connexion/);
  await expect(phone.getByRole("button", { name: "Se connecter" })).toBeVisible();
});

test("repeated wrong passwords lock the account and the form says so", async ({ browser }) => {
  const email = `inconnu-${Date.now()}@globex.test`;
  const page = await signInFresh(browser, email, "mauvais");
  await expect(page.locator("form").getByRole("alert")).toHaveText("Adresse e-mail ou mot de passe incorrect.");
  for (let i = 0; i < 5; i++) {
    await page.getByRole("button", { name: "Se connecter" }).click();
    await expect(page.getByRole("button", { name: "Se connecter" })).toBeEnabled();
  }
  await page.getByRole("button", { name: "Se connecter" }).click();
  await expect(page.locator("form").getByRole("alert")).toHaveText(/Trop de tentatives de connexion/);
});
