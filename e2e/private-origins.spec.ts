import { expect, test } from "./fixtures";

// Private origins are granted per organization: the stack grants CRM Acme's origin
// to Acme only and the model simulator to every organization. Each admin sees on
// « Connecteurs MCP » the grants of their own organization, never another's.

test("an Acme admin sees CRM Acme's origin among its grants; a Globex admin does not", async ({
  pageAs,
  shot,
  stack,
}) => {
  const crmOrigin = new URL(stack.crmUrl).origin;
  const acme = await pageAs("admin");
  await acme.goto("/connecteurs");
  const acmeNote = acme.getByTestId("private-origins");
  await expect(acmeNote).toContainText("Adresses privées que l’opérateur autorise à votre organisation");
  await expect(acmeNote).toContainText(crmOrigin);
  await expect(acmeNote).toContainText(stack.simBaseUrl);
  await shot(acme, "private-origins-acme");

  const globex = await pageAs("globex-admin");
  await globex.goto("/connecteurs");
  const globexNote = globex.getByTestId("private-origins");
  await expect(globexNote).toContainText(stack.simBaseUrl);
  await expect(globexNote).not.toContainText(crmOrigin);
});
