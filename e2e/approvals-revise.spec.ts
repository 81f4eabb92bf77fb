import AxeBuilder from "@axe-core/playwright";
import { agentRun, crmKeys } from "./agent-calls";
import { expect, test } from "./fixtures";

// « Modifier avant d'approuver »: an approver corrects the city of an agent's
// address change in a form generated from the preview tool's input schema,
// sees the new diff, sends it; CRM Acme previews it again and the revision is a
// new proposal the approver may not approve alone. The owner approves it, and
// the run's commit writes the revised address, saying a person revised it.

test("an approver revises a proposal on the screen, sees the new diff, and a second approver approves the revision", async ({
  pageAs,
  api,
  shot,
}) => {
  const keys = await crmKeys(api);
  const call = await agentRun(api, [keys.preview, keys.commit], "Révision");
  const preview = await call(keys.preview, {
    customer_id: "C-2001",
    destination: { kind: "new", line1: "5 rue de France", city: "Nice", postal_code: "06000", country: "FR" },
  });
  const original: string = preview.evidence.proposal.id;

  const approver = await pageAs("approver");
  await approver.goto(`/approbations/${original}`);
  await expect(approver.getByTestId("effect")).toContainText("Nice");
  await approver.getByRole("button", { name: "Modifier avant d’approuver" }).click();
  const form = approver.getByRole("form", { name: "Arguments révisés" });
  await expect(form.getByLabel("city", { exact: true })).toHaveValue("Nice");
  await expect(form.getByLabel("kind", { exact: true })).toHaveValue("new");
  // Each field says its bound, from the schema.
  await expect(form.getByText("de 1 à 100 caractères")).toBeVisible();

  // Validated as typed: an emptied required field is flagged before anything is sent.
  await form.getByLabel("city", { exact: true }).fill("");
  await form.getByRole("button", { name: "Voir les changements" }).click();
  await expect(form.getByText("Obligatoire.")).toBeVisible();
  await expect(approver.getByRole("button", { name: "Envoyer la révision" })).toHaveCount(0);

  await form.getByLabel("city", { exact: true }).fill("Antibes");
  await form.getByLabel("postal_code (facultatif)").fill("06600");
  await form.getByRole("button", { name: "Voir les changements" }).click();
  const diff = approver.getByRole("table", { name: "Arguments modifiés : avant et après" });
  await expect(diff.getByRole("row", { name: /\/destination\/city/ })).toContainText("Nice");
  await expect(diff.getByRole("row", { name: /\/destination\/city/ })).toContainText("Antibes");
  await expect(diff.getByRole("row")).toHaveCount(3);
  const { violations } = await new AxeBuilder({ page: approver }).analyze();
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`)).toEqual([]);
  await shot(approver, "revision-diff");
  await approver.getByRole("button", { name: "Envoyer la révision" }).click();

  // The revision: a new proposal, previewed again by CRM Acme, that the reviser cannot approve alone.
  await expect(approver).not.toHaveURL(new RegExp(`/approbations/${original}$`));
  const revisionId = approver.url().split("/").pop()!;
  await expect(approver.getByTestId("effect")).toContainText("Antibes");
  await expect(approver.getByTestId("revision")).toContainText("Arguments révisés par");
  await expect(approver.getByRole("table", { name: "Arguments révisés : avant et après" })).toContainText("Antibes");
  await expect(approver.getByText("Vous avez révisé cette écriture")).toBeVisible();
  await expect(approver.getByRole("button", { name: "Approuver cette modification" })).toBeDisabled();
  await shot(approver, "revision-nouvelle-proposition");

  // The original says what replaced it and cannot be approved any more.
  await approver.goto(`/approbations/${original}`);
  await expect(approver.getByTestId("replaced-by")).toContainText(revisionId);
  await expect(approver.getByText("Révisée", { exact: true }).first()).toBeVisible();

  const owner = await pageAs("owner");
  await owner.goto(`/approbations/${revisionId}`);
  await expect(owner.getByRole("table", { name: "Champs modifiés : avant et après" })).toContainText(
    "5 rue de France, 06600 Antibes, FR",
  );
  await owner.getByRole("button", { name: "Approuver cette modification" }).click();
  await expect(owner.getByText("Approuvée", { exact: true }).first()).toBeVisible();

  // The run that asked commits the revision; its result says a person revised the arguments.
  const committed = await call(keys.commit, { proposal_id: revisionId });
  expect(committed).toMatchObject({
    ok: true,
    result: { customer_id: "C-2001" },
    evidence: {
      proposal_id: revisionId,
      revision: { original_proposal: original, arguments: { destination: { city: "Antibes", postal_code: "06600" } } },
    },
  });
  const refused = await call(keys.commit, { proposal_id: original });
  expect(refused).toMatchObject({ ok: false, error: { code: "PROPOSAL_NOT_APPROVED" } });
});
