import { expect, test } from "./fixtures";
import { openFromNav } from "./navigation";

// The approver e-mail links to « Préférences »: an approver turns the e-mails
// off there, and the setting holds on the next visit.

test("an approver turns approval e-mails off and on from « Préférences »", async ({ pageAs, shot }) => {
  const page = await pageAs("approver");
  await openFromNav(page, "Préférences");
  const box = page.getByRole("checkbox", { name: /Me prévenir par e-mail/ });
  await expect(box).toBeChecked();

  // The switch shows the saved setting: it flips once the server has stored it.
  await box.click();
  await expect(page.getByText("E-mails d’approbation désactivés.")).toBeVisible();
  await shot(page, "preferences-emails-desactives");
  await page.reload();
  await expect(page.getByRole("checkbox", { name: /Me prévenir par e-mail/ })).not.toBeChecked();

  await page.getByRole("checkbox", { name: /Me prévenir par e-mail/ }).click();
  await expect(page.getByText("E-mails d’approbation activés.")).toBeVisible();
  await page.reload();
  await expect(page.getByRole("checkbox", { name: /Me prévenir par e-mail/ })).toBeChecked();
});
