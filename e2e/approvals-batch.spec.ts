import { agentRun, crmKeys } from "./agent-calls";
import { expect, test } from "./fixtures";
import { openFromNav } from "./navigation";

// The inbox decides a selection in one action: each proposal is still decided
// on its own (its hash, rule, expiry) and answered on its own line.

test("an approver selects proposals in the inbox, approves two at once and refuses another with one reason", async ({
  pageAs,
  api,
  shot,
}) => {
  const keys = await crmKeys(api);
  const stamp = Date.now();
  const ids: string[] = [];
  for (const n of [1, 2, 3]) {
    // One run each: a run's newer proposal for the same target supersedes its earlier ones.
    const call = await agentRun(api, [keys.email], "Lot");
    const asked = await call(keys.email, {
      to: ["camille.martin@example.com"],
      subject: `Lot ${stamp} n°${n}`,
      body: "Bonjour.",
    });
    expect(asked.error.code).toBe("APPROVAL_REQUIRED");
    ids.push(asked.error.proposal_id);
  }
  const page = await pageAs("approver");
  await openFromNav(page, "Approbations");
  const select = (n: number) => page.getByRole("checkbox", { name: new RegExp(`Lot ${stamp} n°${n}`) });
  await select(1).check();
  await select(2).check();
  await expect(page.getByTestId("selection-count")).toHaveText("2 propositions sélectionnées");
  await shot(page, "approbations-selection");
  await page.getByRole("button", { name: "Approuver la sélection" }).click();
  const results = page.getByRole("list", { name: "Résultat des décisions" });
  await expect(results.getByRole("listitem")).toHaveCount(2);
  await expect(results.getByRole("listitem").filter({ hasText: /^Approuvée/ })).toHaveCount(2);
  await expect(page.getByTestId("selection-count")).toHaveCount(0);

  await select(3).check();
  await page.getByRole("button", { name: "Refuser la sélection" }).click();
  await expect(page.getByText("Indiquez la raison du refus")).toBeVisible();
  await page.getByLabel("Raison du refus (pour toute la sélection)").fill("Pas ce mois-ci.");
  await page.getByRole("button", { name: "Refuser la sélection" }).click();
  await expect(results.getByRole("listitem")).toHaveText([new RegExp(`^Refusée : .*Lot ${stamp} n°3`)]);

  const stored = await Promise.all(ids.map(async (id) => (await (await api.get(`/v1/proposals/${id}`)).json()).data));
  expect(stored.map((p) => p.status)).toEqual(["approved", "approved", "refused"]);
  expect(stored[2].decisions[0].reason).toBe("Pas ce mois-ci.");
});
