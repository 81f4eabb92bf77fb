import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { createScript } from "@/connectors/model-sim/control";
import { createAgent } from "./dispatch-fixtures";
import { api, baseUrl, createTenant, dataDir, simBaseUrl, testDb, type Caller, type Tenant } from "./helpers";
import {
  createWidget,
  newConversation,
  openSession,
  sendMessage,
  sseEvents,
  stored,
  widgetRequest,
} from "./widget-helpers";

// The console's « Aperçu »: a page Guichet serves shows the real bubble,
// although Guichet's own origin is not among the widget's origins. A member who
// may change the widget gets a preview token bound to the widget and to the
// console's origin; anything else — another organization's token, an expired
// or tampered one, one replayed from another origin, a signed-out or read-only
// member — is a typed refusal and creates nothing.

const SHOP = "https://shop.example";
const CONSOLE = new URL(baseUrl).origin;

let acme: Tenant;
let other: Tenant;
let agentId: string;
let widget: Awaited<ReturnType<typeof createWidget>>;
let sibling: Awaited<ReturnType<typeof createWidget>>;
let foreign: Awaited<ReturnType<typeof createWidget>>;

beforeAll(async () => {
  [acme, other] = await Promise.all([createTenant("pro"), createTenant("pro")]);
  agentId = (await createAgent(acme, { name: "Boutique" })).id;
  widget = await createWidget(acme, { agent: agentId, name: "Aperçu boutique", allowed_origins: [SHOP] });
  sibling = await createWidget(acme, { agent: agentId, name: "Autre bulle", allowed_origins: [SHOP] });
  const otherAgent = await createAgent(other, { name: "Ailleurs" });
  foreign = await createWidget(other, { agent: otherAgent.id, name: "Ailleurs", allowed_origins: [SHOP] });
});

async function previewPage(widgetId: string, caller?: Caller) {
  const response = await fetch(`${baseUrl}/widgets/${widgetId}/apercu`, {
    headers: caller?.cookie ? { cookie: caller.cookie } : {},
    redirect: "manual",
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

/** The preview token the page hands the loader, as a member of the given role of `tenant`. */
async function previewToken(tenant: Tenant, widgetId: string, role: "developer" | "admin" = "developer") {
  const page = await previewPage(widgetId, await tenant.as(role));
  expect(page.status).toBe(200);
  const token = page.body.match(/data-preview-token="([^"]+)"/)?.[1];
  expect(token).toBeTruthy();
  return token!;
}

describe("the preview page", () => {
  it("shows the snippet with a preview token to a member who may change the widget, framable by Guichet only", async () => {
    const page = await previewPage(widget.id, await acme.as("developer"));
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const csp = String(page.headers.get("content-security-policy"));
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).not.toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(page.headers.get("x-frame-options")).toBe("SAMEORIGIN");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.body).toMatch(/<script src="\/widget\.js\?v=[A-Za-z0-9_-]+" data-key="pk_[^"]+" data-preview-token="/);
    expect(page.body).toContain(`data-key="${widget.public_key}"`);
    // No inline script: the page's CSP would refuse it anyway.
    expect(page.body.match(/<script/g)).toHaveLength(1);
  });

  it("refuses a signed-out request, a read-only member and another organization's widget, with typed errors", async () => {
    const signedOut = await previewPage(widget.id);
    expect(signedOut.status).toBe(401);
    expect(JSON.parse(signedOut.body).error.code).toBe("unauthenticated");
    for (const role of ["viewer", "approver"] as const) {
      const refused = await previewPage(widget.id, await acme.as(role));
      expect(refused.status, role).toBe(403);
      expect(JSON.parse(refused.body).error.code).toBe("insufficient_scope");
      expect(refused.body).not.toContain("data-preview-token");
    }
    const foreignPage = await previewPage(foreign.id, await acme.as("owner"));
    expect(foreignPage.status).toBe(404);
    expect(JSON.parse(foreignPage.body).error.code).toBe("not_found");
    expect((await previewPage("wdg_nothing_here", await acme.as("owner"))).status).toBe(404);
  });
});

describe("a preview session", () => {
  it("opens from the console's origin with the token, is marked preview, streams the real answer and counts apart", async () => {
    const script = await createScript(simBaseUrl, { turns: [{ text: "Bonjour depuis l’aperçu." }] });
    const previewed = await createWidget(acme, {
      agent: agentId,
      name: "Aperçu réel",
      allowed_origins: [SHOP],
      instructions: script.marker,
    });
    // Guichet's own origin is not the widget's: without a preview token it is refused like any other site.
    const plain = await openSession(previewed.public_key, CONSOLE);
    expect(plain.status).toBe(403);
    expect(plain.body.error.code).toBe("widget_origin_not_allowed");

    const token = await previewToken(acme, previewed.id);
    const session = await openSession(previewed.public_key, CONSOLE, { preview_token: token });
    expect(session.status).toBe(201);
    const db = await testDb();
    const developer = await db.member.findFirstOrThrow({ where: { email: acme.emails.developer } });
    expect(session.body.data.visitor).toEqual({
      id: `preview:${developer.id}`,
      name: `Aperçu · ${acme.emails.developer}`,
      verified: false,
    });
    expect(session.body.data.expires_in).toBe(900);
    const visitor = session.body.data.visitor_token as string;

    const conversation = await newConversation(visitor, CONSOLE);
    const answer = await sendMessage(visitor, CONSOLE, conversation, "Bonjour");
    expect(answer.status).toBe(201);
    expect(sseEvents(answer.text).at(-1)).toMatchObject({ event: "done", data: { text: "Bonjour depuis l’aperçu." } });

    const row = await db.widgetConversation.findUniqueOrThrow({ where: { id: conversation } });
    expect(row).toMatchObject({ preview: true, origin: CONSOLE, visitorId: `preview:${developer.id}` });
    const run = await db.run.findFirstOrThrow({
      where: {
        organizationId: acme.organizationId,
        id: (await db.widgetMessage.findFirstOrThrow({ where: { conversationId: conversation } })).runId!,
      },
    });
    expect(run.source).toBe("widget");

    // Members tell preview conversations apart, in the list and in the usage counts.
    const listed = await api(`/v1/widgets/${previewed.id}/conversations`, { as: { key: acme.key } });
    expect(listed.body.data).toEqual([expect.objectContaining({ id: conversation, preview: true, messages: 1 })]);
    const read = await api(`/v1/widgets/${previewed.id}`, { as: { key: acme.key } });
    expect(read.body.data.usage).toEqual({ conversations: 1, messages: 1, preview_conversations: 1 });

    // The preview session's visitor token is bound to the console origin too: useless from the shop.
    const replayed = await widgetRequest("/widget/v1/conversations", { origin: SHOP, token: visitor, json: {} });
    expect(replayed.status).toBe(401);
    expect(replayed.body.error.code).toBe("visitor_token_invalid");
  });

  it("takes the widget's limit slots like any visitor", async () => {
    const limited = await createWidget(acme, {
      agent: agentId,
      name: "Aperçu limité",
      allowed_origins: [SHOP],
      limits: { conversations_per_day: 1 },
    });
    const session = await openSession(limited.public_key, CONSOLE, {
      preview_token: await previewToken(acme, limited.id),
    });
    const visitor = session.body.data.visitor_token as string;
    await newConversation(visitor, CONSOLE);
    const second = await widgetRequest("/widget/v1/conversations", { origin: CONSOLE, token: visitor, json: {} });
    expect(second.status).toBe(429);
    expect(second.body.error.reason.scope).toBe("widget");
    expect(await (await testDb()).widgetConversation.count({ where: { widgetId: limited.id } })).toBe(1);
  });
});

/** A preview token signed with the server's own key (as the server derives it), with any claims. */
async function signedPreviewToken(claims: Record<string, unknown>, expiresAt: number, subject: string) {
  const secret = readFileSync(path.join(dataDir, "auth-secret"), "utf8").trim();
  const key = createHmac("sha256", secret).update("guichet widget preview token v1").digest();
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "guichet-preview" })
    .setSubject(subject)
    .setIssuedAt(expiresAt - 600)
    .setExpirationTime(expiresAt)
    .sign(key);
}

describe("hostile preview tokens", () => {
  it("are typed refusals that create nothing", async () => {
    const good = await previewToken(acme, widget.id);
    const foreignToken = await previewToken(other, foreign.id);
    const claims = JSON.parse(Buffer.from(good.split(".")[1], "base64url").toString());
    const now = Math.floor(Date.now() / 1000);
    const expired = await signedPreviewToken(
      { wid: widget.id, org: acme.organizationId, ori: CONSOLE, eml: acme.emails.developer },
      now - 120,
      claims.sub,
    );
    // The same claims, still valid: proves the forging above is right, so "expired" is what is refused.
    const fresh = await signedPreviewToken(
      { wid: widget.id, org: acme.organizationId, ori: CONSOLE, eml: acme.emails.developer },
      now + 300,
      claims.sub,
    );
    const [head, , signature] = good.split(".");
    const tampered = `${head}.${Buffer.from(JSON.stringify({ ...claims, ori: SHOP })).toString("base64url")}.${signature}`;
    const loopbackAlias = CONSOLE.replace("127.0.0.1", "localhost");
    expect(loopbackAlias).not.toBe(CONSOLE);

    const before = { acme: await stored(acme.organizationId), other: await stored(other.organizationId) };
    const cases: [string, string, string, string][] = [
      ["another organization's token", widget.public_key, foreignToken, CONSOLE],
      ["a token for another widget", sibling.public_key, good, CONSOLE],
      ["an expired token", widget.public_key, expired, CONSOLE],
      ["a tampered token", widget.public_key, tampered, CONSOLE],
      ["replayed from the widget's own site", widget.public_key, good, SHOP],
      ["replayed from another site", widget.public_key, good, "https://evil.example"],
      ["replayed from another loopback name", widget.public_key, good, loopbackAlias],
      ["a visitor token as a preview token", widget.public_key, "x".repeat(40), CONSOLE],
    ];
    for (const [label, publicKey, token, origin] of cases) {
      const response = await openSession(publicKey, origin, { preview_token: token });
      expect(response.status, label).toBe(401);
      expect(response.body.error.code, label).toBe("preview_token_invalid");
      expect(response.text, label).not.toContain("visitor_token");
    }
    const missingOrigin = await widgetRequest("/widget/v1/sessions", {
      json: { public_key: widget.public_key, preview_token: good },
    });
    expect(missingOrigin.status).toBe(403);
    expect(missingOrigin.body.error.code).toBe("widget_origin_not_allowed");
    expect({ acme: await stored(acme.organizationId), other: await stored(other.organizationId) }).toEqual(before);

    expect((await openSession(widget.public_key, CONSOLE, { preview_token: fresh })).status).toBe(201);
  });
});

describe("the bubble's frame in preview mode", () => {
  it("may be framed by Guichet itself only with preview=1; otherwise by the widget's origins alone", async () => {
    const plain = await widgetRequest(`/widget/frame?key=${widget.public_key}`, {});
    expect(plain.headers.get("content-security-policy")).toContain(`frame-ancestors ${SHOP}`);
    expect(plain.headers.get("content-security-policy")).not.toContain("'self' https");
    expect(plain.text).not.toContain("data-preview");
    const preview = await widgetRequest(`/widget/frame?key=${widget.public_key}&preview=1`, {});
    expect(preview.headers.get("content-security-policy")).toContain(`frame-ancestors 'self' ${SHOP}`);
    expect(preview.text).toContain('data-preview="1"');
  });
});
