import { readFile } from "node:fs/promises";
import { startReceiver, type Receiver } from "../tests/api/webhook-receiver";
import { agentRun, crmKeys } from "./agent-calls";
import { expect, test } from "./fixtures";
import { openFromNav } from "./navigation";

// Développeurs › Webhooks and Contrôle › Audit, as Acme's admin uses them: a
// webhook pointing at a real receiver in this process (a test host name that
// the stack maps to 127.0.0.1: a plain loopback URL is refused, as it would be
// in production), its secret seen once, a real proposal's delivery in the log,
// « Renvoyer » reaching the receiver again with a valid Standard Webhooks
// signature; then the creation in the audit trail and in its CSV export.

let receiver: Receiver;
test.beforeAll(async () => {
  receiver = await startReceiver("hooks-e2e");
});
test.afterAll(async () => receiver?.close());

test("an admin adds a webhook, sees a signed delivery, resends it, then finds and exports the creation in « Audit »", async ({
  pageAs,
  api,
  shot,
}) => {
  test.setTimeout(120_000);
  const page = await pageAs("admin");
  await openFromNav(page, "Webhooks");
  const form = page.getByRole("form", { name: "Nouveau webhook" });

  // The network policy's refusal, in French under the field.
  await form.getByLabel("URL de réception").fill(receiver.loopbackUrl);
  await form.getByRole("button", { name: "Créer le webhook" }).click();
  await expect(form.getByRole("alert")).toHaveText(
    "Les adresses locales (loopback) ne sont pas autorisées sur cette installation.",
  );

  await form.getByLabel("URL de réception").fill(receiver.url);
  await form.getByLabel("Description (facultative)").fill("Récepteur e2e");
  await form.getByRole("button", { name: "Créer le webhook" }).click();
  const once = page.getByTestId("webhook-secret");
  await expect(once).toContainText("il ne sera plus jamais affiché");
  const secret = (await once.locator("code").textContent())!.trim();
  expect(secret).toMatch(/^whsec_/);
  await once.getByRole("button", { name: "J’ai copié le secret" }).click();
  await expect(page.getByText(secret)).toHaveCount(0);
  const card = page.getByRole("listitem", { name: `Webhook ${receiver.url}` });
  await expect(card).toContainText("Actif");
  await expect(card).toContainText("Proposition créée");

  // A real proposal: an agent's write to CRM Acme, made with the demo key.
  const keys = await crmKeys(api);
  const call = await agentRun(api, Object.values(keys), "Webhooks e2e");
  const preview = await call(keys.preview, {
    customer_id: "C-1842",
    destination: { kind: "saved", address_id: "ADDR-2" },
  });
  expect(preview.evidence?.proposal?.status, JSON.stringify(preview)).toBe("pending");
  const proposalId: string = preview.evidence.proposal.id;
  const hooks = () => receiver.received.filter((hook) => hook.payload?.data?.proposal === proposalId);
  await expect.poll(() => hooks().length, { timeout: 30_000 }).toBe(1);
  const [first] = hooks();
  expect(first.payload.type).toBe("proposal.created");
  expect(() => receiver.verify(first, secret)).not.toThrow();

  await card.getByRole("button", { name: "Livraisons" }).click();
  const log = card.getByRole("table", { name: `Livraisons de ${receiver.url}` });
  const row = log.locator(`tr[data-delivery="${first.id}"]`);
  await expect(row).toContainText("Proposition créée", { timeout: 15_000 });
  await expect(row).toContainText("Livrée");
  await expect(row.getByRole("cell").nth(2)).toHaveText("1");
  await expect(row.getByRole("cell").nth(3)).toHaveText("200");
  await expect(row.getByRole("cell").nth(4)).toHaveText(/^\d+ ms$/);
  await shot(page, "webhooks-delivery-log");

  // « Renvoyer »: the same message (same webhook-id) reaches the receiver again, signed.
  await row.getByRole("button", { name: "Renvoyer" }).click();
  await expect.poll(() => receiver.attemptsOf(first.id).length, { timeout: 30_000 }).toBe(2);
  const again = receiver.attemptsOf(first.id)[1];
  expect(again.payload).toEqual(first.payload);
  expect(() => receiver.verify(again, secret)).not.toThrow();
  await expect(row.getByRole("cell").nth(2)).toHaveText("2", { timeout: 15_000 });

  // « Audit »: the creation, filtered by action, and the CSV of every matching event.
  await openFromNav(page, "Audit");
  const filters = page.getByRole("form", { name: "Filtres du journal d’audit" });
  await filters.getByLabel("Action").selectOption({ label: "Webhook créé" });
  await filters.getByRole("button", { name: "Filtrer" }).click();
  await expect(page).toHaveURL(/\/audit\?action=webhook_endpoint\.created$/);
  const trail = page.getByRole("table", { name: "Journal d’audit" });
  const creation = trail.getByRole("row").filter({ hasText: receiver.url });
  await expect(creation).toHaveCount(1);
  await expect(creation).toContainText("Webhook créé");
  await expect(creation).toContainText("admin@acme.test");
  await expect(trail.getByRole("row").filter({ hasText: "Connexion réussie" })).toHaveCount(0);
  await shot(page, "audit");

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Exporter en CSV" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^audit-acme-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = await readFile((await download.path())!, "utf8");
  const lines = csv
    .replace(/^\uFEFF/, "")
    .trimEnd()
    .split("\r\n");
  expect(lines[0]).toContain('"action"');
  expect(lines.slice(1).length).toBeGreaterThanOrEqual(1);
  expect(lines.slice(1).every((line) => line.includes('"webhook_endpoint.created","Webhook créé"'))).toBe(true);
  expect(lines.some((line) => line.includes(receiver.url) && line.includes("admin@acme.test"))).toBe(true);
  expect(csv).not.toContain(secret);

  // Leave Acme without this endpoint: later specs' proposals must not go to a closed receiver.
  await openFromNav(page, "Webhooks");
  await card.getByRole("button", { name: "Supprimer" }).click();
  await page
    .getByRole("alertdialog", { name: /^Supprimer le webhook / })
    .getByRole("button", { name: "Supprimer le webhook" })
    .click();
  await expect(card).toHaveCount(0);
});
