import { expect, test, type Browser } from "@playwright/test";

// Sign-out keeps the host name the person uses. The stack's NEXTAUTH_URL names
// 127.0.0.1; the console is also the console at localhost (another loopback
// name of the same server): signing out there must not jump to 127.0.0.1, nor
// the other way round. Each case signs in through the form in a fresh context
// (its own session: the shared demo sessions stay signed in).

async function signInAndOut(browser: Browser, origin: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/connexion`);
  await page.getByLabel("Adresse e-mail").fill("viewer@acme.test");
  await page.getByLabel("Mot de passe").fill("guichet-demo");
  await page.getByRole("button", { name: "Se connecter" }).click();
  await expect(page).toHaveURL(`${origin}/agents`);
  // A cookie-authenticated /v1 write from this origin is the console's own (lib/auth/console-origin.ts).
  // (The viewer may not start runs: refused for the role, not as a cross-site request.)
  const refusal = await page.evaluate(
    async () => (await (await fetch("/v1/runs", { method: "POST", body: "{}" })).json()).error,
  );
  expect(refusal.message).not.toBe("Cross-site request refused.");
  expect(refusal.code).toBe("insufficient_scope");

  await page.getByRole("button", { name: "Se déconnecter", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`^${origin}/connexion`));
  await expect(page.getByRole("button", { name: "Se connecter" })).toBeVisible();
  // Signed out for real, on this host.
  await page.goto(`${origin}/agents`);
  await expect(page).toHaveURL(new RegExp(`^${origin}/connexion`));
  await context.close();
}

test("signing out of a console opened at 127.0.0.1 stays on 127.0.0.1", async ({ browser, baseURL }) => {
  const url = new URL(baseURL!);
  expect(url.hostname).toBe("127.0.0.1");
  await signInAndOut(browser, url.origin);
});

test("signing out of the same console opened at localhost stays on localhost", async ({ browser, baseURL }) => {
  await signInAndOut(browser, `http://localhost:${new URL(baseURL!).port}`);
});
