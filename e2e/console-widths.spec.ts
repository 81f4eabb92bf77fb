import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";

// At an ordinary laptop width (1280 × 860) no console page is wider than the
// window: wide tables scroll inside their own region. The pages are the ones
// the main navigation lists for the owner (who sees every link), so a page added
// to the navigation is checked without touching this spec.

async function overflow(page: Page) {
  return page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
}

test("no console page overflows horizontally at 1280 × 860", async ({ pageAs }) => {
  test.setTimeout(180_000);
  const page = await pageAs("owner");
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.goto("/agents");
  const nav = page.getByRole("navigation", { name: "Navigation principale" });
  const hrefs = await nav.getByRole("link").evaluateAll((links) => links.map((a) => a.getAttribute("href")!));
  expect(hrefs.length).toBeGreaterThan(5);

  const wide: Record<string, { scrollWidth: number; clientWidth: number }> = {};
  for (const href of hrefs) {
    await page.goto(href);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page.getByText("Chargement", { exact: false })).toHaveCount(0);
    const size = await overflow(page);
    if (size.scrollWidth > size.clientWidth) wide[href] = size;

    if (href === "/membres") await expect(page.getByRole("form", { name: "Inviter une personne" })).toBeInViewport();
    if (href === "/cles-api") await expect(page.getByRole("heading", { name: "Nouvelle clé" })).toBeInViewport();
    if (href === "/audit")
      await expect(page.getByRole("form", { name: "Filtres du journal d’audit" })).toBeInViewport();
  }
  expect(wide).toEqual({});
});
