import { expect, test } from "./fixtures";

// A browser carrying a planted callback-url cookie and arriving with a hostile callbackUrl signs in, lands on our own
// pages and uses the console as usual. Uses Acme's viewer in a fresh context.

test("a planted callback-url cookie does not break signing in or the console", async ({ browser, baseURL }) => {
  const context = await browser.newContext();
  const url = new URL(baseURL!);
  // Over http a browser accepts only the plain name; the __Secure-/__Host- ones are covered by the API tests.
  await context.addCookies([{ name: "next-auth.callback-url", value: "x", domain: url.hostname, path: "/" }]);
  const page = await context.newPage();
  await page.goto(`/connexion?callbackUrl=${encodeURIComponent("//evil.example/agents")}`);
  await page.getByLabel("Adresse e-mail").fill("viewer@acme.test");
  await page.getByLabel("Mot de passe").fill("guichet-demo");
  await page.getByRole("button", { name: "Se connecter" }).click();
  await expect(page).toHaveURL(new RegExp(`^${url.origin}/agents$`));
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();

  // The console keeps working: another page, and a cookie-authenticated /v1 call from the page.
  await page.goto("/audit");
  await expect(page).not.toHaveURL(/connexion/);
  const status = await page.evaluate(async () => (await fetch("/v1/agents")).status);
  expect(status).toBe(200);

  // The auth routes answer too, however the cookie was planted.
  const signin = await page.request.get("/api/auth/signin?callbackUrl=x", { maxRedirects: 0 });
  expect(signin.status()).toBeLessThan(500);
  await context.close();
});
