import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { openFromNav } from "./navigation";
import type { DemoRole } from "./roles";

// The console walked as a person walks it: signed in once, then only clicks in
// the navigation — never a reload between pages, so every page renders on top
// of the React Query cache the previous ones left. Two pages caching different
// shapes under one key, a server module pulled into the browser, a hook that
// throws on a role's refusal: each shows up here as a page error, a console
// error or Next's error screen.

const pages = [
  { link: "Agents", path: "/agents" },
  { link: "Outils", path: "/outils" },
  { link: "Connecteurs MCP", path: "/connecteurs" },
  { link: "Modèles", path: "/modeles" },
  { link: "Clés API", path: "/cles-api" },
  { link: "Webhooks", path: "/webhooks" },
  { link: "Widget", path: "/widgets" },
  { link: "Approbations", path: "/approbations" },
  { link: "Opérations", path: "/operations" },
  { link: "Politiques", path: "/politiques" },
  { link: "Journal", path: "/journal" },
  { link: "Audit", path: "/audit" },
  { link: "Membres", path: "/membres" },
  { link: "Préférences", path: "/preferences" },
] as const;
type Link = (typeof pages)[number]["link"];

/** Links only some roles see: the others must not find them in the navigation. */
const managersOnly: Link[] = ["Membres", "Webhooks", "Audit"];
const managers = new Set<string>(["owner", "admin", "globex-admin"]);

/** Everything that went wrong on the page since it opened. */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console error: ${message.text()}`);
  });
  // Names the request behind a "Failed to load resource" console error.
  page.on("response", (response) => {
    if (response.status() >= 400)
      errors.push(`${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`);
  });
  return errors;
}

/** The navigation click every spec makes, then what this spec asks of each page: its URL, loaded, no error screen. */
async function clickTo(page: Page, link: Link) {
  await openFromNav(page, link);
  await expect(page).toHaveURL(new RegExp(`${pages.find((p) => p.link === link)!.path}$`));
  await expect(page.getByText("Chargement", { exact: false })).toHaveCount(0);
  await expect(page.getByText(/This page couldn.t load|Application error|client-side exception/)).toHaveCount(0);
}

const who: (DemoRole | "globex-admin")[] = ["owner", "admin", "dev", "approver", "viewer", "globex-admin"];

for (const role of who) {
  test(`${role} reaches every page by clicking, in several orders, without an error`, async ({ pageAs, shot }) => {
    test.setTimeout(240_000); // about forty pages rendered one after the other
    const page = await pageAs(role);
    const errors = watchErrors(page);
    if (role !== "globex-admin") await page.goto("/agents");
    await expect(page.getByRole("heading", { level: 1, name: "Agents" })).toBeVisible();
    const visible = pages.filter((p) => managers.has(role) || !managersOnly.includes(p.link));
    const hidden = managersOnly.filter((link) => !visible.some((p) => p.link === link));
    for (const link of hidden)
      await expect(
        page.getByRole("navigation", { name: "Navigation principale" }).getByRole("link", { name: link }),
      ).toHaveCount(0);

    const forward = visible.map((p) => p.link);
    const orders: Link[][] = [
      forward,
      [...forward].reverse(),
      ["Journal", "Agents", "Outils", "Agents", "Journal", "Outils", "Approbations", "Agents"],
    ];
    for (const order of orders) for (const link of order) await clickTo(page, link);

    // A drawer opened on top of cached lists, then the way back through the journal.
    await clickTo(page, "Agents");
    const firstAgent = page.getByRole("table", { name: "Agents" }).getByRole("button").first();
    if (await firstAgent.count()) {
      await firstAgent.click();
      await expect(page.getByRole("dialog")).toBeVisible();
      await page.keyboard.press("Escape");
      await expect(page.getByRole("dialog")).toHaveCount(0);
    }
    await clickTo(page, "Journal");
    await clickTo(page, "Outils");
    for (const { link } of visible) {
      await clickTo(page, link);
      await shot(page, `journey-${role}-${pages.find((p) => p.link === link)!.path.slice(1)}`);
    }
    expect(errors).toEqual([]);
  });
}
