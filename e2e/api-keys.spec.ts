import { expect, test } from "./fixtures";
import { openFromNav } from "./navigation";

test("a developer creates an API key, sees it once, uses it and revokes it", async ({ pageAs, shot, stack }) => {
  const page = await pageAs("dev");
  await openFromNav(page, "Clés API");
  await expect(page.getByRole("heading", { name: "Clés API" })).toBeVisible();

  // A validation error from the server lands on the field.
  await page.getByRole("button", { name: "Créer la clé" }).click();
  await expect(page.getByText(/Too small|at least|>=1/i).first()).toBeVisible();

  await page.getByLabel("Nom").fill("Intégration e2e");
  await page.getByRole("checkbox", { name: /Runs — écriture/ }).check();
  await page.getByRole("button", { name: "Créer la clé" }).click();

  const secretBox = page.getByTestId("new-key-secret");
  await expect(secretBox).toContainText("ne sera plus jamais affichée");
  const secret = (await secretBox.locator("code").textContent())!.trim();
  expect(secret).toMatch(/^gch_/);
  await shot(page, "cles-api-secret-shown-once");

  // The secret works against the API.
  const used = await fetch(`${stack.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${secret}` } });
  expect(used.status).toBe(200);

  await page.getByRole("button", { name: "J’ai copié la clé" }).click();
  await expect(page.getByText(secret)).toHaveCount(0);
  const row = page.getByRole("row", { name: /Intégration e2e/ });
  await expect(row).toContainText("runs:write");
  await page.reload();
  await expect(page.getByText(secret)).toHaveCount(0);
  await expect(row).not.toContainText("Jamais");

  await row.getByRole("button", { name: "Révoquer" }).click();
  const confirm = page.getByRole("alertdialog", { name: /^Révoquer la clé « .+ » \?$/ });
  await expect(confirm).toContainText("Les programmes qui l’utilisent seront refusés.");
  await confirm.getByRole("button", { name: "Révoquer la clé" }).click();
  await expect(row).toContainText("Révoquée");
  await shot(page, "cles-api-revoked");

  const refused = await fetch(`${stack.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${secret}` } });
  expect(refused.status).toBe(401);
});

test("unauthenticated console pages redirect to sign-in", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto("/approbations"); // a typed URL: the point is the redirect
  // …which keeps the page asked for, so signing in leads back to it.
  await expect(page).toHaveURL(/\/connexion\?callbackUrl=%2Fapprobations$/);
  await expect(page.getByRole("heading", { name: "Connexion à la console" })).toBeVisible();
  await context.close();
});
