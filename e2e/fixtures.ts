import { readFileSync } from "node:fs";
import path from "node:path";
import { test as base, expect, type APIRequestContext, type Page } from "@playwright/test";
import { roles, storageState, type DemoRole } from "./roles";

export interface Stack {
  baseUrl: string;
  crmUrl: string;
  crmBaseUrl: string;
  simBaseUrl: string;
  databaseUrl: string;
  dataDir: string;
}

interface Fixtures {
  stack: Stack;
  /** A page signed in as that Acme demo role, or as Globex's admin through the sign-in form (its own browser context). */
  pageAs: (role: DemoRole | "globex-admin") => Promise<Page>;
  /** Requests with the demo API key (all scopes) of Acme. */
  api: APIRequestContext;
  /** Keeps a screenshot under test-results/screenshots and attaches it to the report. */
  shot: (page: Page, name: string) => Promise<void>;
}

function readStack(): Stack {
  const port = Number(process.env.STACK_PORT ?? 3210);
  return JSON.parse(readFileSync(process.env.STACK_FILE ?? `test-results/stack-${port}.json`, "utf8")) as Stack;
}

export const test = base.extend<Fixtures>({
  stack: async ({}, use) => use(readStack()),
  pageAs: async ({ browser }, use) => {
    const contexts: Awaited<ReturnType<typeof browser.newContext>>[] = [];
    await use(async (role) => {
      if (role === "globex-admin") {
        const context = await browser.newContext();
        contexts.push(context);
        const page = await context.newPage();
        await page.goto("/connexion");
        await page.getByLabel("Adresse e-mail").fill("admin@globex.test");
        await page.getByLabel("Mot de passe").fill("guichet-demo");
        await page.getByRole("button", { name: "Se connecter" }).click();
        await expect(page).toHaveURL(/\/agents$/);
        return page;
      }
      if (!roles.includes(role)) throw new Error(`unknown role ${role}`);
      const context = await browser.newContext({ storageState: storageState(role) });
      contexts.push(context);
      return context.newPage();
    });
    for (const context of contexts) await context.close();
  },
  api: async ({ playwright, stack }, use) => {
    const key = readFileSync(path.join(stack.dataDir, "demo-api-key"), "utf8").trim();
    const context = await playwright.request.newContext({
      baseURL: stack.baseUrl,
      extraHTTPHeaders: { authorization: `Bearer ${key}` },
    });
    await use(context);
    await context.dispose();
  },
  shot: async ({}, use, testInfo) => {
    await use(async (page, name) => {
      const file = path.join("test-results", "screenshots", `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      await testInfo.attach(name, { path: file, contentType: "image/png" });
    });
  },
});

export { expect };
