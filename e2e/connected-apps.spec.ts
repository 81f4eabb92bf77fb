import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "./fixtures";
import { openFromNav } from "./navigation";

// A member connects an MCP client by OAuth: the consent screen (in French,
// unframeable by another origin), then « Applications connectées » in
// Préférences lists the grant, and « Révoquer » ends it.

let callback: Server;
let callbackUrl: string;
let attacker: Server;
let attackerOrigin: string;
let framedUrl = "";

test.beforeAll(async () => {
  callback = createServer((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("ok"));
  await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));
  callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  attacker = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      `<!doctype html><title>Jeu</title><iframe id="victim" src="${framedUrl}" width="900" height="700" onload="document.body.dataset.framed = 'loaded'"></iframe>`,
    );
  });
  await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
  attackerOrigin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((resolve) => callback.close(resolve));
  await new Promise((resolve) => attacker.close(resolve));
});

test("a developer authorizes an MCP client, sees it in Préférences and revokes it", async ({
  pageAs,
  api,
  stack,
  shot,
}) => {
  const name = `Agent OAuth e2e ${Date.now()}`;
  const agentId = (await (await api.post("/v1/agents", { data: { name } })).json()).data.id as string;
  const clientName = `Client e2e ${randomBytes(3).toString("hex")}`;
  const registered = await api.post("/oauth/register", {
    headers: { authorization: "" },
    data: { client_name: clientName, redirect_uris: [callbackUrl], token_endpoint_auth_method: "none" },
  });
  expect(registered.status()).toBe(201);
  const clientId = (await registered.json()).client_id as string;
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: callbackUrl,
    code_challenge: createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url"),
    code_challenge_method: "S256",
    state: "e2e",
    scope: "mcp:read_write",
    resource: `${stack.baseUrl}/mcp/agents/${agentId}`,
  });

  const page = await pageAs("dev");
  await page.goto(`/oauth/authorize?${query}`);
  await expect(page.getByText(`« ${clientName} » (non vérifié)`)).toBeVisible();
  await expect(page.getByTestId("agent-name")).toHaveText(name);
  await expect(page.getByTestId("scope")).toContainText("Lecture et écriture");
  await shot(page, "oauth-consentement");

  // Framed by another origin, the consent screen does not render: no « Autoriser » under a decoy.
  framedUrl = page.url();
  const framed = await pageAs("dev");
  await framed.goto(attackerOrigin);
  await expect(framed.locator("body")).toHaveAttribute("data-framed", "loaded");
  await expect(framed.frameLocator("#victim").getByRole("button", { name: "Autoriser" })).toHaveCount(0);

  await page.getByRole("button", { name: "Autoriser" }).click();
  await page.waitForURL((url) => url.toString().startsWith(callbackUrl));
  const answer = new URL(page.url()).searchParams;
  expect(answer.get("code")).toMatch(/^gmc_/);
  expect(answer.get("state")).toBe("e2e");
  expect(answer.get("iss")).toBe(stack.baseUrl);

  await page.goto("/agents");
  await openFromNav(page, "Préférences");
  const row = page.getByRole("row", { name: new RegExp(clientName) });
  await expect(row).toContainText(name);
  await expect(row).toContainText("Lecture et écriture");
  await shot(page, "preferences-applications-connectees");
  await row.getByRole("button", { name: "Révoquer" }).click();
  await page.getByRole("button", { name: "Révoquer l’accès" }).click();
  await expect(page.getByText("Accès révoqué.")).toBeVisible();
  await expect(page.getByRole("row", { name: new RegExp(clientName) })).toHaveCount(0);
});
