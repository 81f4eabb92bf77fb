import AxeBuilder from "@axe-core/playwright";
import { devices, type Page } from "@playwright/test";
import { agentRun, crmKeys } from "./agent-calls";
import { expect, test } from "./fixtures";

// An approver opens a proposal's link from the e-mail on their phone, signed
// out: they sign in, land on that proposal (not on Agents), see its effect on
// the first screen (the navigation is folded into « Menu »), nothing scrolls
// sideways, and approving works. Playwright's iPhone 13 (390 × 844) in Chromium.

const { defaultBrowserType: _ignored, ...iPhone } = devices["iPhone 13"];

async function horizontalOverflow(page: Page) {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

async function violations(page: Page) {
  const { violations: found } = await new AxeBuilder({ page }).analyze();
  return found.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`);
}

test("from the e-mail's link on a phone: sign in, land on the proposal, read it without sideways scrolling, approve", async ({
  browser,
  api,
  shot,
}) => {
  const keys = await crmKeys(api);
  const call = await agentRun(api, [keys.preview, keys.commit], "Téléphone");
  const preview = await call(keys.preview, {
    customer_id: "C-2001",
    destination: { kind: "new", line1: "12 avenue Jean Médecin", city: "Nice", postal_code: "06000", country: "FR" },
  });
  const id: string = preview.evidence.proposal.id;
  expect(iPhone.viewport.width).toBe(390);

  const context = await browser.newContext(iPhone);
  const page = await context.newPage();
  await page.goto(`/approbations/${id}`);
  await expect(page).toHaveURL(/\/connexion\?callbackUrl=/);
  expect(new URL(page.url()).searchParams.get("callbackUrl")).toBe(`/approbations/${id}`);
  await page.getByLabel("Adresse e-mail").fill("approver@acme.test");
  await page.getByLabel("Mot de passe").fill("guichet-demo");
  await page.getByRole("button", { name: "Se connecter" }).click();
  await expect(page).toHaveURL(new RegExp(`/approbations/${id}$`));

  // The first screen: the effect, not the navigation, which waits behind « Menu ».
  await expect(page.getByTestId("effect")).toContainText("C-2001");
  await expect(page.getByTestId("effect")).toBeInViewport();
  const nav = page.getByRole("navigation", { name: "Navigation principale" });
  await expect(nav).toBeHidden();
  const diff = page.getByRole("table", { name: "Champs modifiés : avant et après" });
  await expect(diff).toContainText("12 avenue Jean Médecin, 06000 Nice, FR");
  await expect(page.getByText("Chargement", { exact: false })).toHaveCount(0);
  expect(await horizontalOverflow(page)).toBe(0);
  // The diff fits too: its own scrolling region has nothing hidden to the side.
  const region = page.getByRole("region", { name: "Champs modifiés : avant et après" });
  expect(await region.evaluate((el) => el.scrollWidth - el.clientWidth)).toBe(0);
  await shot(page, "telephone-approbation");
  expect(await violations(page)).toEqual([]);

  // The menu: a button that says whether it is open, reachable and closable from the keyboard.
  const menu = page.getByRole("button", { name: "Menu" });
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await menu.click();
  await expect(menu).toHaveAttribute("aria-expanded", "true");
  await expect(nav).toBeVisible();
  expect(await violations(page)).toEqual([]);
  await page.keyboard.press("Escape");
  await expect(nav).toBeHidden();
  await expect(menu).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(nav).toBeVisible();
  await shot(page, "telephone-menu-ouvert");
  await nav.getByRole("link", { name: /^Approbations/ }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Approbations" })).toBeVisible();
  await expect(nav).toBeHidden();
  // The inbox: one card per proposal, none wider than the phone.
  const card = page.getByTestId("pending-card").filter({ has: page.locator(`a[href$="/approbations/${id}"]`) });
  await expect(card).toBeVisible();
  await expect(card).toContainText("Quorum");
  expect(await horizontalOverflow(page)).toBe(0);
  expect(await violations(page)).toEqual([]);
  await shot(page, "telephone-approbations");

  // Back to the proposal; one tap reaches the decision, and approving works.
  await card.getByRole("link").click();
  await page.getByRole("link", { name: "Aller à la décision" }).click();
  const approve = page.getByRole("button", { name: "Approuver cette modification" });
  await expect(approve).toBeInViewport();
  await approve.click();
  await expect(page.getByText("Approuvée", { exact: true }).first()).toBeVisible();
  expect(await horizontalOverflow(page)).toBe(0);
  const stored = (await (await api.get(`/v1/proposals/${id}`)).json()).data;
  expect(stored).toMatchObject({ status: "approved", approvals: { count: 1 } });
  await context.close();
});
