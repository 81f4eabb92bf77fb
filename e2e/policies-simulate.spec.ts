import { agentRun, crmKeys } from "./agent-calls";
import { expect, test } from "./fixtures";
import { openFromNav } from "./navigation";

// Politiques › « Simuler »: an admin raises a row's quorum in the editor and
// sees, before publishing, which recorded decisions it would change; nothing
// is published by simulating.

test("an admin edits a row, simulates it and reads the table of changes", async ({ pageAs, api, shot }) => {
  const keys = await crmKeys(api);
  const call = await agentRun(api, [keys.email], "Simulation");
  const asked = await call(keys.email, {
    to: ["camille.martin@example.com"],
    subject: `Simulation ${Date.now()}`,
    body: "Bonjour.",
  });
  expect(asked.error.code).toBe("APPROVAL_REQUIRED");

  const page = await pageAs("admin");
  await openFromNav(page, "Politiques");
  const version = await page.getByTestId("policy-version").textContent();
  await page.getByRole("button", { name: "Modifier" }).click();
  const editor = page.getByLabel("Lignes de la table (JSON, dans l’ordre)");
  const rules = JSON.parse(await editor.inputValue()) as { id: string; approvals_required: number }[];
  const messages = rules.findIndex((rule) => rule.id === "external-messages");
  rules[messages] = { ...rules[messages], approvals_required: 2 };
  await editor.fill(JSON.stringify(rules, null, 2));
  await page.getByLabel("Simuler sur les décisions des").selectOption({ label: "dernières 24 heures" });
  await page.getByRole("button", { name: "Simuler" }).click();

  const result = page.getByTestId("simulation-result");
  await expect(result.getByTestId("simulation-summary")).toContainText("Rien n’est appliqué.");
  const row = page.getByTestId("simulation-rows").getByRole("row", { name: /quorum 1 → 2/ });
  await expect(row.first()).toContainText(keys.email);
  await expect(row.first().getByRole("link", { name: "proposition" }).first()).toHaveAttribute(
    "href",
    /^\/approbations\/prop_/,
  );
  await shot(page, "politiques-simulation");

  await page.getByRole("button", { name: "Annuler" }).click();
  await expect(page.getByTestId("policy-version")).toHaveText(version ?? "");
  const live = (await (await api.get("/v1/policies")).json()).data;
  expect(live.rules.find((rule: { id: string }) => rule.id === "external-messages").approvals_required).toBe(1);
});

test("an admin publishes a draft in shadow mode, reads what it would have changed, then drops it", async ({
  pageAs,
  api,
  shot,
}) => {
  const keys = await crmKeys(api);
  const page = await pageAs("admin");
  await openFromNav(page, "Politiques");
  const version = await page.getByTestId("policy-version").textContent();
  await page.getByRole("button", { name: "Modifier" }).click();
  const editor = page.getByLabel("Lignes de la table (JSON, dans l’ordre)");
  const rules = JSON.parse(await editor.inputValue()) as { id: string; approvals_required: number }[];
  const messages = rules.findIndex((rule) => rule.id === "external-messages");
  rules[messages] = { ...rules[messages], approvals_required: 2 };
  await editor.fill(JSON.stringify(rules, null, 2));
  await page.getByRole("button", { name: "Publier en mode fantôme" }).click();
  const panel = page.getByRole("region", { name: "Table en mode fantôme" });
  await expect(panel).toBeVisible();
  await expect(panel.getByTestId("shadow-no-difference")).toBeVisible();

  // A write now: decided by the live table, observed by the shadow one.
  const call = await agentRun(api, [keys.email], "Fantôme");
  const asked = await call(keys.email, {
    to: ["camille.martin@example.com"],
    subject: `Fantôme ${Date.now()}`,
    body: "Bonjour.",
  });
  expect(asked.error.code).toBe("APPROVAL_REQUIRED");
  const proposal = (await (await api.get(`/v1/proposals/${asked.error.proposal_id}`)).json()).data;
  expect(proposal.policy.approvals_required).toBe(1);

  // No reload: the panel follows the differences as they come.
  await expect(panel.getByTestId("shadow-counts").getByRole("row", { name: /quorum 1 → 2/ })).toContainText(keys.email);
  await shot(page, "politiques-fantome");
  await panel.getByRole("button", { name: "Abandonner" }).click();
  await expect(panel).toHaveCount(0);
  await expect(page.getByTestId("policy-version")).toHaveText(version ?? "");
});
