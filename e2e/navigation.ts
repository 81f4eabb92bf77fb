import { expect, type Locator, type Page } from "@playwright/test";

// People open the console once and then click: specs do the same, so a page is
// rendered on top of the cache the previous one left, as it is for a person.

const landing = "/agents";

/** Opens a console page through the main navigation (loading the console first if the tab is blank). */
export async function openFromNav(page: Page, link: string) {
  if (page.url() === "about:blank") await page.goto(landing);
  await page
    .getByRole("navigation", { name: "Navigation principale" })
    .getByRole("link", { name: new RegExp(`^${link}`) })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: link })).toBeVisible();
}

/** Opens one proposal's approval screen from the inbox, as an approver would. */
export async function openProposal(page: Page, proposalId: string) {
  await openFromNav(page, "Approbations");
  await page.locator(`a[href$="/approbations/${proposalId}"]`).first().click();
  await expect(page).toHaveURL(new RegExp(`/approbations/${proposalId}$`));
}

/** Opens an agent's drawer from the Agents list, as a developer would, and returns the drawer. */
export async function openAgentDrawer(page: Page, name: string): Promise<Locator> {
  await openFromNav(page, "Agents");
  await page
    .getByRole("table", { name: "Agents" })
    .getByRole("row", { name: new RegExp(name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")) })
    .getByRole("button", { name, exact: true })
    .click();
  const drawer = page.getByRole("dialog");
  await expect(drawer).toBeVisible();
  return drawer;
}
