import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Page } from "@playwright/test";
import { agentRun, crmKeys } from "./agent-calls";
import { expect, test } from "./fixtures";
import { openAgentDrawer, openFromNav } from "./navigation";

// Every console screen, reached by clicking, checked with axe: any violation,
// whatever its impact (missing label, contrast, a dialog without a name…), fails.

async function violations(page: Page) {
  const { violations: found } = await new AxeBuilder({ page }).analyze();
  return found.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help} — ${v.nodes
        .map((n) => n.target.join(" "))
        .slice(0, 3)
        .join(" | ")}`,
  );
}

async function pendingAddressChange(api: APIRequestContext): Promise<string> {
  const { preview, commit } = await crmKeys(api);
  const call = await agentRun(api, [preview, commit], "Accessibilité");
  const body = await call(preview, { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } });
  expect(body.evidence?.proposal?.id, JSON.stringify(body)).toBeTruthy();
  return body.evidence.proposal.id as string;
}

test("the sign-in page has no accessibility violation", async ({ browser, shot }) => {
  const page = await (await browser.newContext()).newPage();
  await page.goto("/connexion");
  await expect(page.getByRole("button", { name: "Se connecter" })).toBeVisible();
  await shot(page, "a11y-connexion");
  expect(await violations(page)).toEqual([]);
  await page.context().close();
});

test("every console page, the agent drawer, « Essayer » with a conversation, the run drawer and an approval screen have no accessibility violation", async ({
  pageAs,
  api,
  shot,
}) => {
  // Some twenty pages, each scanned by axe: the journeys share the two cores with the API suites.
  test.setTimeout(360_000);
  const proposalId = await pendingAddressChange(api);
  const page = await pageAs("admin");
  await page.goto("/agents");
  const nav = page.getByRole("navigation", { name: "Navigation principale" });
  const found: Record<string, string[]> = {};

  // Every page of the main navigation (the admin sees every link), so a page added there is scanned too.
  const hrefs = await nav.getByRole("link").evaluateAll((links) => links.map((a) => a.getAttribute("href")!));
  expect(hrefs.length).toBeGreaterThan(5);
  for (const href of hrefs) {
    await nav.locator(`a[href="${href}"]`).click();
    await expect(page).toHaveURL(new RegExp(`${href}$`));
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page.getByText("Chargement", { exact: false })).toHaveCount(0);
    found[href] = await violations(page);
    await shot(page, `liste-${href.replace(/[^a-z]+/g, "-").replace(/^-|-$/g, "")}`);
  }

  await nav.getByRole("link", { name: "Agents" }).click();
  await page.getByRole("table", { name: "Agents" }).getByRole("button").first().click();
  await expect(page.getByRole("dialog")).toBeVisible();
  found["agent drawer"] = await violations(page);
  await shot(page, "a11y-agent-drawer");
  await page.keyboard.press("Escape");

  // « Essayer » with a conversation: the stack's model simulator plays the demo script (a read, then a proposal).
  const drawer = await openAgentDrawer(page, "Changements d’adresse");
  await drawer.getByRole("button", { name: "Essayer", exact: true }).click();
  const panel = drawer.getByTestId("try-panel");
  await panel.getByLabel("Votre message").fill("Le client C-1842 a déménagé : livrez-le désormais à Lyon.");
  await panel.getByRole("button", { name: "Envoyer" }).click();
  const status = panel.getByTestId("try-status");
  await expect(status).toContainText("En attente d’approbation", { timeout: 30_000 });
  await expect(panel.getByTestId("try-step")).toHaveCount(2);
  found["Essayer conversation"] = await violations(page);
  await shot(page, "a11y-essayer-conversation");
  const runId = (await status.locator("code").textContent())!.trim();
  await page.keyboard.press("Escape");

  // The run drawer of that run, with its steps table.
  await openFromNav(page, "Journal");
  await page.getByRole("button", { name: `Étapes du run ${runId}` }).click();
  const runDrawer = page.getByRole("dialog", { name: `Run ${runId}` });
  await expect(runDrawer.getByTestId("step-row")).toHaveCount(2);
  found["run drawer"] = await violations(page);
  await shot(page, "a11y-run-drawer");
  await page.keyboard.press("Escape");

  await nav.getByRole("link", { name: /^Approbations/ }).click();
  await page.getByTestId("pending-list").locator(`a[href$="${proposalId}"]`).click();
  await expect(page).toHaveURL(new RegExp(`/approbations/${proposalId}$`));
  await expect(page.getByRole("button", { name: "Approuver cette modification" })).toBeVisible();
  found["approval screen"] = await violations(page);
  await shot(page, "a11y-approval-screen");

  expect(found).toEqual(Object.fromEntries(Object.keys(found).map((k) => [k, []])));
});
