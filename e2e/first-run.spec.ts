import { expect, test } from "@playwright/test";
import { createTestDatabase, run, startApp, testNetwork } from "../tests/api/server";

// The first visitor of an empty instance (its own database, reference data only:
// the shared stack holds the demo) creates the organization and lands signed in.

let stop: () => Promise<void>;
let baseUrl: string;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const database = await createTestDatabase(process.env.TEST_DB === "postgresql" ? "postgresql" : "sqlite");
  const env = {
    ...process.env,
    NODE_ENV: "production" as const,
    DATABASE_URL: database.url,
    GUICHET_DATA_DIR: database.dataDir,
    ...testNetwork(),
  };
  await run(process.execPath, ["scripts/migrate.mjs"], env);
  await run(
    process.execPath,
    ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "prisma/seed.ts", "--reference-only"],
    env,
  );
  const app = await startApp(env);
  baseUrl = app.baseUrl;
  stop = async () => {
    await app.stop();
    await database.drop();
  };
});

test.afterAll(async () => stop?.());

test("the first visitor creates the organization and lands signed in", async ({ page }) => {
  await page.goto(`${baseUrl}/connexion`);
  await expect(page).toHaveURL(/\/creer-organisation$/);
  await expect(page.getByRole("heading", { level: 1, name: "Créer votre organisation" })).toBeVisible();
  const form = page.getByRole("form", { name: "Créer votre organisation" });
  await form.getByLabel("Nom de l’organisation").fill("Mutuelle Bréhat");
  await form.getByLabel("Votre nom").fill("Camille Martin");
  await form.getByLabel("Adresse e-mail").fill("camille@brehat.example");
  await form.getByLabel("Mot de passe").fill("court");
  await form.getByRole("button", { name: "Créer l’organisation" }).click();
  await expect(form.getByText("Au moins 10 caractères variés")).toBeVisible();
  await form.getByLabel("Mot de passe").fill("une phrase de passe longue");
  await page.screenshot({ path: "test-results/screenshots/premier-lancement-formulaire.png" });
  await form.getByRole("button", { name: "Créer l’organisation" }).click();
  await expect(page).toHaveURL(/\/agents$/);
  await expect(page.getByRole("heading", { level: 1, name: "Agents" })).toBeVisible();
  await page.screenshot({ path: "test-results/screenshots/premier-lancement-connecte.png" });
  // Once is enough: the page now sends people to sign in.
  await page.context().clearCookies();
  await page.goto(`${baseUrl}/creer-organisation`);
  await expect(page).toHaveURL(/\/connexion/);
});
