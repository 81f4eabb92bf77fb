import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Page } from "@playwright/test";
import { agentRun, crmKeys } from "./agent-calls";
import { expect, test } from "./fixtures";
import { openFromNav } from "./navigation";

// Every console screen, reached by clicking, checked with axe: any violation,
// whatever its impact (missing label, contrast, a dialog without a name…), fails.

async function seriousViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.map(
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

test("the sign-in page has no serious accessibility violation", async ({ browser, shot }) => {
  const page = await (await browser.newContext()).newPage();
  await page.goto("/connexion");
  await expect(page.getByRole("button", { name: "Se connecter" })).toBeVisible();
  await shot(page, "a11y-connexion");
  expect(await seriousViolations(page)).toEqual([]);
  await page.context().close();
});

test("every console page, the agent drawer and an approval screen have no serious accessibility violation", async ({
  pageAs,
  api,
  shot,
}) => {
  test.setTimeout(180_000);
  const proposalId = await pendingAddressChange(api);
  const page = await pageAs("admin");
  await page.goto("/agents");
  const nav = page.getByRole("navigation", { name: "Navigation principale" });
  const found: Record<string, string[]> = {};

  for (const link of [
    "Agents",
    "Outils",
    "Connecteurs MCP",
    "Clés API",
    "Approbations",
    "Opérations",
    "Politiques",
    "Journal",
  ]) {
    await openFromNav(page, link);
    await expect(page.getByText("Chargement", { exact: false })).toHaveCount(0);
    found[link] = await seriousViolations(page);
    await shot(
      page,
      `liste-${link
        .toLowerCase()
        .normalize("NFD")
        .replace(/[\u0300-\u036f]/g, "")
        .replace(/[^a-z]+/g, "-")}`,
    );
  }

  await nav.getByRole("link", { name: "Agents" }).click();
  await page.getByRole("table", { name: "Agents" }).getByRole("button").first().click();
  await expect(page.getByRole("dialog")).toBeVisible();
  found["agent drawer"] = await seriousViolations(page);
  await shot(page, "a11y-agent-drawer");
  await page.keyboard.press("Escape");

  await nav.getByRole("link", { name: /^Approbations/ }).click();
  await page.getByTestId("pending-list").locator(`a[href$="${proposalId}"]`).click();
  await expect(page).toHaveURL(new RegExp(`/approbations/${proposalId}$`));
  await expect(page.getByRole("button", { name: "Approuver cette modification" })).toBeVisible();
  found["approval screen"] = await seriousViolations(page);
  await shot(page, "a11y-approval-screen");

  expect(found).toEqual(Object.fromEntries(Object.keys(found).map((k) => [k, []])));
});
