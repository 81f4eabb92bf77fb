import { expect, test } from "./fixtures";
import { agentRun, crmKeys } from "./agent-calls";
import { openFromNav, openProposal } from "./navigation";

// Compte › Membres: Acme's owner invites an approver, who joins from the link in
// a browser of their own, approves a real proposal, and is removed; their open
// session is refused at its next navigation.

const STRONG = "Tournesol-bleu-sur-le-quai";

test("the owner invites an approver who joins from the link, approves, and is removed", async ({
  pageAs,
  browser,
  api,
  shot,
}) => {
  test.setTimeout(180_000); // two people, a proposal and a dozen pages on a shared machine
  const email = `approbatrice-${Date.now()}@acme.test`;
  const owner = await pageAs("owner");
  await owner.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await openFromNav(owner, "Membres");
  await expect(
    owner.getByRole("table", { name: "Membres" }).getByRole("row", { name: /owner@acme\.test/ }),
  ).toBeVisible();

  // The invitation: its link is shown once, copied with the button.
  const form = owner.getByRole("form", { name: "Inviter une personne" });
  await form.getByLabel("Adresse e-mail").fill(email);
  await form.getByLabel("Rôle").selectOption({ label: "Approbateur" });
  await form.getByRole("button", { name: "Inviter" }).click();
  const shown = owner.getByTestId("invitation-link");
  await expect(shown).toContainText("il ne sera plus jamais affiché");
  await expect(shown).toContainText("Aucun e-mail n’a été envoyé");
  const link = (await shown.locator("code").textContent())!.trim();
  expect(new URL(link).pathname).toMatch(/^\/invitation\/inv_[A-Za-z0-9_-]{40,}$/);
  await shown.getByRole("button", { name: "Copier le lien" }).click();
  await expect(owner.getByText("Lien copié.")).toBeVisible();
  expect(await owner.evaluate(() => navigator.clipboard.readText())).toBe(link);
  const pending = owner.getByRole("table", { name: "Invitations en attente" });
  await expect(pending.getByRole("row", { name: new RegExp(email) })).toContainText("Approbateur");
  // Once: after « Inviter quelqu’un d’autre », the link is nowhere on the page.
  await shown.getByRole("button", { name: "Inviter quelqu’un d’autre" }).click();
  await expect(owner.getByText(link)).toHaveCount(0);
  await shot(owner, "membres");

  // A proposal waiting for an approver, made by an agent of the demo key.
  const keys = await crmKeys(api);
  const call = await agentRun(api, [keys.preview, keys.commit], "Membres e2e");
  // A new address of its own: a saved one may already be on file after other journeys' commits (NO_CHANGE).
  const proposal = await call(keys.preview, {
    customer_id: "C-1842",
    destination: {
      kind: "new",
      line1: `${Date.now() % 100} rue des Membres`,
      city: "Lille",
      postal_code: "59000",
      country: "FR",
    },
  });
  expect(proposal.evidence.proposal.status).toBe("pending");
  const proposalId: string = proposal.evidence.proposal.id;

  // The invitee, in a browser of their own: a weak password is refused under its field, then they join.
  const invitee = await (await browser.newContext()).newPage();
  await invitee.goto(link);
  await expect(invitee.getByRole("heading", { level: 1, name: /^Rejoindre / })).toBeVisible();
  await expect(invitee.getByText(email)).toBeVisible();
  await invitee.getByLabel("Votre nom").fill("Aline Approbatrice");
  await invitee.getByLabel("Mot de passe", { exact: true }).fill("motdepasse2024");
  await invitee.getByLabel("Confirmation du mot de passe").fill("motdepasse2024");
  await invitee.getByRole("button", { name: "Rejoindre l’organisation" }).click();
  await expect(invitee.getByText("Ce mot de passe figure parmi les plus utilisés")).toBeVisible();
  await invitee.getByLabel("Mot de passe", { exact: true }).fill(STRONG);
  await invitee.getByLabel("Confirmation du mot de passe").fill(STRONG);
  await invitee.getByRole("button", { name: "Rejoindre l’organisation" }).click();
  await expect(invitee).toHaveURL(/\/approbations$/);
  await expect(invitee.getByText(email)).toBeVisible();

  // The new approver decides on the approval screen.
  await openProposal(invitee, proposalId);
  await invitee.getByRole("button", { name: "Approuver cette modification" }).click();
  await expect(invitee.getByText("Approuvée", { exact: true }).first()).toBeVisible();
  const decided = (await (await api.get(`/v1/proposals/${proposalId}`)).json()).data;
  expect(decided).toMatchObject({
    status: "approved",
    decisions: [{ decision: "approve", member: { name: "Aline Approbatrice" } }],
  });

  // The link was single-use.
  const reused = await (await browser.newContext()).newPage();
  await reused.goto(link);
  await expect(reused.getByRole("heading", { level: 1, name: "Invitation non valable" })).toBeVisible();
  await expect(reused.getByRole("main").getByRole("alert")).toContainText("a déjà servi");

  // Back as the owner: the invitation became a member, who is removed.
  await openFromNav(owner, "Agents");
  await openFromNav(owner, "Membres");
  await expect(owner.getByText("Aucune invitation en attente")).toBeVisible();
  const row = owner.getByRole("table", { name: "Membres" }).getByRole("row", { name: new RegExp(email) });
  await expect(row).toContainText("Aline Approbatrice");
  await expect(row).toContainText("Actif");
  await row.getByRole("button", { name: "Retirer" }).click();
  const dialog = owner.getByRole("dialog", { name: "Retirer Aline Approbatrice ?" });
  await dialog.getByRole("button", { name: "Retirer le membre" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(owner.getByRole("table", { name: "Membres" }).getByText(email)).toHaveCount(0);

  // The removed approver's next navigation is refused: back to the sign-in page, and their password no longer opens it.
  await invitee
    .getByRole("navigation", { name: "Navigation principale" })
    .getByRole("link", { name: /^Opérations/ })
    .click();
  await expect(invitee).toHaveURL(/\/connexion/);
  await invitee.getByLabel("Adresse e-mail").fill(email);
  await invitee.getByLabel("Mot de passe").fill(STRONG);
  await invitee.getByRole("button", { name: "Se connecter" }).click();
  await expect(invitee.locator("form").getByRole("alert")).toHaveText("Adresse e-mail ou mot de passe incorrect.");
});

test("the owner cannot demote or remove the last owner, and an admin is never offered the owner role", async ({
  pageAs,
}) => {
  test.setTimeout(120_000);
  const owner = await pageAs("owner");
  await openFromNav(owner, "Membres");
  const members = owner.getByRole("table", { name: "Membres" });
  const self = members.getByRole("row", { name: /owner@acme\.test/ });
  await self.getByRole("combobox").selectOption({ label: "Administrateur" });
  await expect(self.getByRole("alert")).toHaveText(/^Impossible : c’est le dernier propriétaire/);
  await expect(self.getByRole("combobox")).toHaveValue("owner");

  const admin = await pageAs("admin");
  await openFromNav(admin, "Membres");
  const invite = admin.getByRole("form", { name: "Inviter une personne" });
  await expect(invite.getByLabel("Rôle").locator("option")).toHaveText([
    "Administrateur",
    "Développeur",
    "Approbateur",
    "Lecteur",
  ]);
  const ownerRow = admin.getByRole("table", { name: "Membres" }).getByRole("row", { name: /owner@acme\.test/ });
  await expect(ownerRow.getByRole("combobox")).toBeDisabled();
  await expect(ownerRow.getByRole("button", { name: "Retirer" })).toBeDisabled();

  // Those who do not manage members do not see the link.
  const approver = await pageAs("approver");
  await openFromNav(approver, "Approbations");
  await expect(
    approver.getByRole("navigation", { name: "Navigation principale" }).getByRole("link", { name: "Membres" }),
  ).toHaveCount(0);
});

test("a revoked invitation's link, and a link that never existed, say so instead of the form", async ({
  pageAs,
  browser,
}) => {
  test.setTimeout(120_000);
  const email = `revoquee-${Date.now()}@acme.test`;
  const admin = await pageAs("admin");
  await openFromNav(admin, "Membres");
  const form = admin.getByRole("form", { name: "Inviter une personne" });
  await form.getByLabel("Adresse e-mail").fill(email);
  await form.getByLabel("Rôle").selectOption({ label: "Lecteur" });
  await form.getByRole("button", { name: "Inviter" }).click();
  const link = (await admin.getByTestId("invitation-link").locator("code").textContent())!.trim();

  // An address that already belongs to a member is refused under the field.
  await admin.getByRole("button", { name: "Inviter quelqu’un d’autre" }).click();
  await form.getByLabel("Adresse e-mail").fill("viewer@acme.test");
  await form.getByRole("button", { name: "Inviter" }).click();
  await expect(form.getByRole("alert")).toHaveText(/^Cette adresse appartient déjà à un membre/);

  const row = admin
    .getByRole("table", { name: "Invitations en attente" })
    .getByRole("row", { name: new RegExp(email) });
  await row.getByRole("button", { name: "Révoquer" }).click();
  await admin
    .getByRole("alertdialog", { name: `Révoquer l’invitation de ${email} ?` })
    .getByRole("button", { name: "Révoquer l’invitation" })
    .click();
  await expect(admin.getByText(`Invitation de ${email} révoquée`)).toBeVisible();
  await expect(row).toHaveCount(0);

  const visitor = await (await browser.newContext()).newPage();
  await visitor.goto(link);
  await expect(visitor.getByRole("heading", { level: 1, name: "Invitation non valable" })).toBeVisible();
  await expect(visitor.getByRole("main").getByRole("alert")).toContainText("a été révoquée");
  await expect(visitor.getByRole("button", { name: "Rejoindre l’organisation" })).toHaveCount(0);
  await visitor.goto(`${new URL(link).origin}/invitation/inv_${"x".repeat(43)}`);
  await expect(visitor.getByRole("main").getByRole("alert")).toContainText("n’est pas valable");
});
