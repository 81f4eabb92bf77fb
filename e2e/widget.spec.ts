import AxeBuilder from "@axe-core/playwright";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { APIRequestContext, FrameLocator, Page } from "@playwright/test";
import { createScript } from "@/connectors/model-sim/control";
import { expect, test } from "./fixtures";
import { openProposal } from "./navigation";

// The widget on "another site": customer pages served over https on `.test`
// hosts (a self-signed certificate; Chromium maps *.test to loopback) embed the
// snippet. The allowed shop gets a working bubble; another origin gets a
// refusal and cannot even frame the bubble; model output is shown as text.

const chromiumArgs = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--host-resolver-rules=MAP *.test 127.0.0.1",
  "--ignore-certificate-errors",
];
test.use({
  launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: chromiumArgs },
});

let site: Server;
let shop = "";
let evil = "";

/** A customer's page: the snippet, or an iframe of the bubble's frame page (`?frame=`). */
function customerPage(url: URL): string {
  const frame = url.searchParams.get("frame");
  if (frame) return `<!doctype html><title>Autre site</title><iframe id="bubble" src="${frame}"></iframe>`;
  const src = url.searchParams.get("src")!;
  const key = url.searchParams.get("key")!;
  return `<!doctype html><html lang="fr"><title>Boutique</title><h1>Boutique de démonstration</h1>
<script src="${src}/widget.js" data-key="${key}" async></script></html>`;
}

test.beforeAll(async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "widget-site-"));
  execFileSync("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    path.join(dir, "key.pem"),
    "-out",
    path.join(dir, "cert.pem"),
    "-days",
    "1",
    "-subj",
    "/CN=shop.test",
  ]);
  site = createServer(
    { key: readFileSync(path.join(dir, "key.pem")), cert: readFileSync(path.join(dir, "cert.pem")) },
    (req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(customerPage(new URL(req.url ?? "/", "https://site.test")));
    },
  );
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  const port = (site.address() as AddressInfo).port;
  shop = `https://shop.test:${port}`;
  evil = `https://evil.test:${port}`;
});

test.afterAll(async () => {
  await new Promise((resolve) => site.close(resolve));
});

async function demoAgentId(api: APIRequestContext): Promise<string> {
  const agents = (await (await api.get("/v1/agents?limit=100")).json()).data as { id: string; name: string }[];
  return agents.find((agent) => agent.name === "Changements d’adresse")!.id;
}

async function createWidget(api: APIRequestContext, body: Record<string, unknown>) {
  const response = await api.post("/v1/widgets", { data: { allowed_origins: [shop], ...body } });
  expect(response.status()).toBe(201);
  return (await response.json()).data as { id: string; public_key: string };
}

async function openBubble(page: Page, origin: string, key: string, baseUrl: string): Promise<FrameLocator> {
  await page.goto(`${origin}/?src=${encodeURIComponent(baseUrl)}&key=${encodeURIComponent(key)}`);
  await page.locator("[data-guichet-widget] > button").click();
  return page.frameLocator("[data-guichet-widget] iframe");
}

test("the bubble on the shop: a starter prompt streams, the write waits, an approver approves, the visitor reads the answer", async ({
  browser,
  pageAs,
  api,
  stack,
}) => {
  test.setTimeout(120_000);
  // Earlier journeys on this stack may have moved C-1842 to Lyon already, which would make the preview a no-op.
  const reset = await fetch(`${stack.crmBaseUrl}/__control/reset`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ data: true }),
  });
  expect(reset.ok).toBe(true);
  const widget = await createWidget(api, {
    agent: await demoAgentId(api),
    name: "Boutique démo",
    capabilities: "read_write",
    appearance: { title: "Aide boutique", starter_prompts: ["Livrez C-1842 à son adresse de Lyon"] },
  });
  const context = await browser.newContext();
  const page = await context.newPage();
  const bubble = await openBubble(page, shop, widget.public_key, stack.baseUrl);
  await expect(bubble.getByRole("heading", { name: "Aide boutique" })).toBeVisible();
  await bubble.getByRole("button", { name: "Livrez C-1842 à son adresse de Lyon" }).click();
  const log = bubble.getByRole("log");
  await expect(log).toContainText("Je consulte la fiche du client C-1842", { timeout: 30_000 });
  await expect(log).toContainText("Votre demande attend la validation d'un conseiller", { timeout: 30_000 });

  // axe on the open bubble (its own document, the frame).
  const frame = page.frames().find((f) => f.url().includes("/widget/frame"))!;
  const axe = await new AxeBuilder({ page }).include("[data-guichet-widget]").analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  expect(frame).toBeDefined();

  // The inbox names the widget and the visitor; the approver approves in a browser of their own.
  const proposals = (await (await api.get("/v1/proposals?limit=100")).json()).data as any[];
  const proposal = proposals.find((p) => p.requester.source === "widget" && p.requester.widget.id === widget.id);
  expect(proposal).toBeDefined();
  const approver = await pageAs("approver");
  await openProposal(approver, proposal.id);
  await expect(approver.getByTestId("requester")).toContainText("Widget « Boutique démo » · visiteur");
  await approver.getByRole("button", { name: "Approuver cette modification" }).click();
  await expect(approver.getByText("Approuvée", { exact: true }).first()).toBeVisible();

  // The visitor's bubble gets the answer without a reload.
  await expect(log).toContainText("J’ai demandé le changement d’adresse", { timeout: 30_000 });
  const writes = (
    (await (await fetch(`${stack.crmBaseUrl}/__control/state`)).json()).operations as Array<Record<string, unknown>>
  ).filter((op) => String(op.idempotency_key).startsWith(`${proposal.run}:`));
  expect(writes).toHaveLength(1);

  // A reload restores the conversation.
  await page.reload();
  await page.locator("[data-guichet-widget] > button").click();
  await expect(bubble.getByRole("log")).toContainText("Livrez C-1842 à son adresse de Lyon");
  await expect(bubble.getByRole("log")).toContainText("J’ai demandé le changement d’adresse");
  await context.close();
});

test("another origin: the bubble says the site is not allowed, nothing is created, and the frame is refused", async ({
  browser,
  api,
  stack,
}) => {
  const widget = await createWidget(api, { agent: await demoAgentId(api), name: "Boutique fermée aux autres" });
  const context = await browser.newContext();
  const page = await context.newPage();
  await openBubble(page, evil, widget.public_key, stack.baseUrl);
  await expect(page.locator("[data-guichet-widget] [role=status]")).toHaveText(
    "Ce site n'est pas autorisé à utiliser cet assistant.",
  );
  await expect(page.locator("[data-guichet-widget] iframe")).toHaveCount(0);
  const conversations = await api.get(`/v1/widgets/${widget.id}/conversations`);
  expect((await conversations.json()).data).toEqual([]);

  // A page of another origin framing the bubble's page directly gets nothing rendered.
  const refusals: string[] = [];
  page.on("console", (message) => refusals.push(message.text()));
  const frameUrl = `${stack.baseUrl}/widget/frame?key=${widget.public_key}`;
  await page.goto(`${evil}/?frame=${encodeURIComponent(frameUrl)}`);
  await expect.poll(() => refusals.join("\n")).toContain("frame-ancestors");
  await expect(page.frameLocator("#bubble").getByRole("heading")).toHaveCount(0);
  // The shop itself may frame it.
  await page.goto(`${shop}/?frame=${encodeURIComponent(frameUrl)}`);
  await expect(page.frameLocator("#bubble").getByRole("button", { name: "Nouvelle conversation" })).toBeVisible();
  await context.close();
});

test("model output with HTML and a javascript: link is shown as text; nothing executes", async ({
  browser,
  api,
  stack,
}) => {
  const payload =
    'Voici <img src=x onerror="window.__pwned=1"> et <script>window.__pwned=2</script> ' +
    "[cliquez](javascript:window.__pwned=3) ou [le site](https://example.com/aide).";
  const script = await createScript(stack.simBaseUrl, { turns: [{ text: payload }] });
  const widget = await createWidget(api, {
    agent: await demoAgentId(api),
    name: "Boutique XSS",
    instructions: script.marker,
    appearance: { starter_prompts: ["Bonjour"] },
  });
  const context = await browser.newContext();
  const page = await context.newPage();
  const bubble = await openBubble(page, shop, widget.public_key, stack.baseUrl);
  await bubble.getByRole("button", { name: "Bonjour" }).click();
  const answer = bubble.locator(".bubble.assistant").last();
  await expect(answer).toContainText("<script>window.__pwned=2</script>", { timeout: 30_000 });
  await expect(answer).toContainText('<img src=x onerror="window.__pwned=1">');
  await expect(answer).toContainText("[cliquez](javascript:window.__pwned=3)");
  await expect(answer.locator("img, script")).toHaveCount(0);
  const links = answer.locator("a");
  await expect(links).toHaveCount(1);
  await expect(links).toHaveAttribute("href", "https://example.com/aide");
  await expect(links).toHaveAttribute("rel", "noopener noreferrer nofollow");
  const frame = page.frames().find((f) => f.url().includes("/widget/frame"))!;
  expect(await frame.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  await context.close();
});
