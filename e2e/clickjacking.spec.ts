import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "./fixtures";
import { agentRun, crmKeys } from "./agent-calls";
import { openProposal } from "./navigation";

// Clickjacking: a page of another origin on the same machine (same site for the
// browser, so the approver's session cookie goes along) frames the approval
// screen of a pending proposal under a decoy button. The browser must refuse to
// render the frame, so the approve button is never under the approver's click.

let attacker: Server;
let attackerOrigin: string;
let framedUrl = "";

test.beforeAll(async () => {
  attacker = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><title>Gagnez un prix</title><button>Cliquez ici</button>
<iframe id="victim" src="${framedUrl}" width="1200" height="800" onload="document.body.dataset.framed = 'loaded'"></iframe>`);
  });
  await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
  attackerOrigin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((resolve) => attacker.close(resolve));
});

test("another origin framing a pending approval screen gets no frame and no approve button", async ({
  pageAs,
  api,
  stack,
}) => {
  const keys = await crmKeys(api);
  const call = await agentRun(api, [keys.refund]);
  const refund = await call(keys.refund, {
    payment_id: "PAY-9002",
    amount: { value_minor: 1_200, currency: "EUR" },
    reason: "Cadre e2e",
  });
  expect(refund.error.code).toBe("APPROVAL_REQUIRED");
  const proposalId: string = refund.error.proposal_id;

  // Unframed, the approver can approve it: the button the attack is after exists.
  const page = await pageAs("approver");
  await openProposal(page, proposalId);
  await expect(page.getByRole("button", { name: "Approuver cette modification" })).toBeEnabled();

  framedUrl = `${stack.baseUrl}/approbations/${proposalId}`;
  const refusals: string[] = [];
  page.on("console", (message) => refusals.push(message.text()));
  await page.goto(attackerOrigin);
  await expect(page.locator("body")).toHaveAttribute("data-framed", "loaded");
  const frame = page.frames().find((f) => f !== page.mainFrame());
  expect(frame, "the iframe exists").toBeDefined();
  expect(frame!.url()).not.toContain("/approbations/");
  await expect(page.frameLocator("#victim").getByRole("button", { name: /Approuver/ })).toHaveCount(0);
  expect(refusals.join("\n")).toMatch(/frame-ancestors 'none'|X-Frame-Options/);

  // Nothing was decided.
  const stored = (await (await api.get(`/v1/proposals/${proposalId}`)).json()).data;
  expect(stored.status).toBe("pending");
});
