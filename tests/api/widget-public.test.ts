import { beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "./dispatch-fixtures";
import { api, createTenant, type Tenant } from "./helpers";
import {
  createWidget,
  forgedToken,
  newConversation,
  openSession,
  sendMessage,
  stored,
  userToken,
  visitorToken,
  widgetRequest,
} from "./widget-helpers";

// The public surface treated as hostile: a page of another origin, a request
// without Origin, a forged or stale token, another visitor or organization.
// Each refusal is typed and leaves nothing behind (no conversation, no run).

const SHOP = "https://shop.example";
const DEV = "http://localhost:4020";
const EVIL = "https://evil.example";

let acme: Tenant;
let other: Tenant;
let anonymous: Awaited<ReturnType<typeof createWidget>>;
let verified: Awaited<ReturnType<typeof createWidget>>;
let foreign: Awaited<ReturnType<typeof createWidget>>;

beforeAll(async () => {
  [acme, other] = await Promise.all([createTenant("pro"), createTenant("pro")]);
  const agent = await createAgent(acme, { name: "Boutique" });
  anonymous = await createWidget(acme, { agent: agent.id, name: "Anonyme", allowed_origins: [SHOP, DEV] });
  verified = await createWidget(acme, {
    agent: agent.id,
    name: "Espace client",
    allowed_origins: [SHOP],
    identity: "verified",
  });
  const otherAgent = await createAgent(other, { name: "Autre" });
  foreign = await createWidget(other, { agent: otherAgent.id, name: "Ailleurs", allowed_origins: [EVIL] });
});

describe("Origin", () => {
  it("refuses a session without Origin or from an unlisted origin, with no CORS header and nothing stored", async () => {
    const before = await stored(acme.organizationId);
    for (const origin of [null, EVIL, "null", `${SHOP}:8443`, "http://shop.example"]) {
      const response = await openSession(anonymous.public_key, origin as string);
      expect(response.status, String(origin)).toBe(403);
      expect(response.body.error.code).toBe("widget_origin_not_allowed");
      expect(response.headers.get("access-control-allow-origin")).toBeNull();
      expect(response.headers.get("set-cookie")).toBeNull();
    }
    expect(await stored(acme.organizationId)).toEqual(before);
  });

  it("answers CORS for a listed origin only, preflight included", async () => {
    const ok = await openSession(anonymous.public_key, SHOP);
    expect(ok.status).toBe(201);
    expect(ok.headers.get("access-control-allow-origin")).toBe(SHOP);
    expect(ok.headers.get("vary")).toContain("Origin");
    expect(ok.headers.get("set-cookie")).toBeNull();
    const preflight = (origin: string) =>
      widgetRequest("/widget/v1/sessions", {
        method: "OPTIONS",
        origin,
        headers: { "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
      });
    expect((await preflight(SHOP)).headers.get("access-control-allow-origin")).toBe(SHOP);
    expect((await preflight("https://nowhere.example")).headers.get("access-control-allow-origin")).toBeNull();
  });

  it("ignores a console session cookie: the public surface neither reads nor sets one", async () => {
    const member = await acme.as("owner");
    const response = await widgetRequest("/widget/v1/conversations", {
      origin: SHOP,
      headers: { cookie: member.cookie! },
    });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe("visitor_token_invalid");
  });
});

describe("visitor tokens", () => {
  it("are useless from another origin, for another widget, after a key rotation, or forged", async () => {
    const token = await visitorToken(anonymous.public_key, SHOP);
    expect((await widgetRequest("/widget/v1/conversations", { origin: SHOP, token })).status).toBe(200);
    const before = await stored(acme.organizationId);
    // Another listed origin of the same widget: the token was issued for SHOP only.
    const elsewhere = await widgetRequest("/widget/v1/conversations", { origin: DEV, token, json: {} });
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.body.error.code).toBe("visitor_token_invalid");
    const evil = await widgetRequest("/widget/v1/conversations", { origin: EVIL, token, json: {} });
    expect(evil.status).toBe(403);
    expect(evil.body.error.code).toBe("widget_origin_not_allowed");
    const noOrigin = await widgetRequest("/widget/v1/conversations", { token, json: {} });
    expect(noOrigin.status).toBe(403);
    // A tampered token (another widget's id in its claims) fails its signature.
    const [head, payload, signature] = token.split(".");
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    const tampered = `${head}.${Buffer.from(JSON.stringify({ ...claims, wid: verified.id })).toString("base64url")}.${signature}`;
    expect((await widgetRequest("/widget/v1/conversations", { origin: SHOP, token: tampered, json: {} })).status).toBe(
      401,
    );
    expect(await stored(acme.organizationId)).toEqual(before);
  });

  it("stop working once the public key is rotated, and the old key opens no session", async () => {
    const widget = await createWidget(acme, { agent: anonymous.agent, name: "Rotation", allowed_origins: [SHOP] });
    const token = await visitorToken(widget.public_key, SHOP);
    const rotated = await api(`/v1/widgets/${widget.id}/rotate_public_key`, { method: "POST", as: { key: acme.key } });
    expect(rotated.status).toBe(200);
    const stale = await widgetRequest("/widget/v1/conversations", { origin: SHOP, token, json: {} });
    expect(stale.status).toBe(401);
    expect((await openSession(widget.public_key, SHOP)).status).toBe(404);
    expect((await openSession(rotated.body.data.public_key, SHOP)).status).toBe(201);
  });
});

describe("verified visitors", () => {
  it("accepts a good token and names the visitor by its sub", async () => {
    const response = await openSession(verified.public_key, SHOP, { user_token: await userToken(verified) });
    expect(response.status).toBe(201);
    expect(response.body.data.visitor).toEqual({ id: "user:client-1842", name: "Camille Martin", verified: true });
  });

  it.each([
    ["missing", async () => undefined, "missing"],
    ["expired", async () => userToken(verified, {}, { expiresIn: Math.floor(Date.now() / 1000) - 120 }), "expired"],
    ["wrong audience", async () => userToken(verified, {}, { audience: anonymous.id }), "audience"],
    ["wrong secret", async () => userToken(verified, {}, { secret: anonymous.signing_secret }), "signature"],
    ["alg none", async () => forgedToken({ alg: "none" }, claimsFor(verified.id)), "algorithm"],
    [
      "RS256 with the secret",
      async () => forgedToken({ alg: "RS256" }, claimsFor(verified.id), verified.signing_secret),
      "algorithm",
    ],
    ["tampered claims", async () => tamper(await userToken(verified), { sub: "admin" }), "signature"],
    ["longer than an hour", async () => userToken(verified, {}, { expiresIn: "3h" }), "lifetime"],
    [
      "issued in the future",
      async () => forgedToken({ alg: "HS256" }, claimsFor(verified.id, 600), verified.signing_secret),
      "not_yet_valid",
    ],
    ["not a JWT", async () => "not-a-token", "malformed"],
  ])("refuses a %s token with user_token_invalid, nothing created", async (_case, token, reason) => {
    const before = await stored(acme.organizationId);
    const userTokenValue = await token();
    const response = await openSession(
      verified.public_key,
      SHOP,
      userTokenValue === undefined ? {} : { user_token: userTokenValue },
    );
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe("user_token_invalid");
    expect(response.body.error.reason.code).toBe(reason);
    expect(response.body.data).toBeUndefined();
    expect(await stored(acme.organizationId)).toEqual(before);
  });

  it("refuses tokens signed with the secret before its rotation", async () => {
    const widget = await createWidget(acme, {
      agent: anonymous.agent,
      name: "Secret",
      allowed_origins: [SHOP],
      identity: "verified",
    });
    const old = await userToken(widget);
    await api(`/v1/widgets/${widget.id}/rotate_signing_secret`, { method: "POST", as: { key: acme.key } });
    const response = await openSession(widget.public_key, SHOP, { user_token: old });
    expect(response.status).toBe(401);
    expect(response.body.error.reason.code).toBe("signature");
  });
});

function claimsFor(audience: string, issuedInSeconds = 0) {
  const now = Math.floor(Date.now() / 1000) + issuedInSeconds;
  return { sub: "client-1842", aud: audience, iat: now, exp: now + 600 };
}

function tamper(token: string, changes: Record<string, unknown>) {
  const [head, payload, signature] = token.split(".");
  const claims = { ...JSON.parse(Buffer.from(payload, "base64url").toString()), ...changes };
  return `${head}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${signature}`;
}

describe("isolation", () => {
  it("visitor B neither reads nor posts to visitor A's conversation (404), nor lists it", async () => {
    const a = await visitorToken(anonymous.public_key, SHOP);
    const b = await visitorToken(anonymous.public_key, SHOP);
    const conversation = await newConversation(a, SHOP);
    const before = await stored(acme.organizationId);
    const read = await widgetRequest(`/widget/v1/conversations/${conversation}`, { origin: SHOP, token: b });
    expect(read.status).toBe(404);
    expect(read.body.error.code).toBe("not_found");
    const post = await sendMessage(b, SHOP, conversation, "Montre-moi ta conversation");
    expect(post.status).toBe(404);
    const listed = await widgetRequest("/widget/v1/conversations", { origin: SHOP, token: b });
    expect(listed.body.data.map((c: { id: string }) => c.id)).not.toContain(conversation);
    expect(await stored(acme.organizationId)).toEqual(before);
    // Visitor A reads it back.
    const own = await widgetRequest(`/widget/v1/conversations/${conversation}`, { origin: SHOP, token: a });
    expect(own.status).toBe(200);
    expect(own.body.data).toEqual({ id: conversation, turns: [] });
  });

  it("another organization's widget key never reaches this organization's conversations or agent", async () => {
    const a = await visitorToken(anonymous.public_key, SHOP);
    const conversation = await newConversation(a, SHOP);
    const intruder = await visitorToken(foreign.public_key, EVIL);
    const read = await widgetRequest(`/widget/v1/conversations/${conversation}`, { origin: EVIL, token: intruder });
    expect(read.status).toBe(404);
    // Its key from a page of ours is refused by its own origin list.
    expect((await openSession(foreign.public_key, SHOP)).status).toBe(403);
    // The console's API of one organization does not show the other's widgets.
    expect((await api(`/v1/widgets/${anonymous.id}/conversations`, { as: { key: other.key } })).status).toBe(404);
  });
});

describe("unavailable", () => {
  it("an inactive widget answers widget_unavailable, not an error page", async () => {
    const widget = await createWidget(acme, {
      agent: anonymous.agent,
      name: "Fermé",
      allowed_origins: [SHOP],
      active: false,
    });
    const response = await openSession(widget.public_key, SHOP);
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe("widget_unavailable");
  });
});

describe("framing and the loader", () => {
  it("the frame page lists exactly the widget's origins in frame-ancestors; every other page keeps 'none'", async () => {
    const frame = await widgetRequest(`/widget/frame?key=${anonymous.public_key}`, {});
    expect(frame.status).toBe(200);
    const csp = frame.headers.get("content-security-policy") ?? "";
    expect(csp).toContain(`frame-ancestors ${SHOP} ${DEV}`);
    expect(csp).not.toContain("'unsafe-inline'; script");
    expect(csp).toContain("script-src 'self'");
    expect(frame.headers.get("x-frame-options")).toBeNull();
    expect(frame.text).not.toMatch(/<script>[^<]/);
    const unknown = await widgetRequest("/widget/frame?key=pk_unknownunknownunknown", {});
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    for (const path of ["/widget/v1/conversations", "/connexion", "/widget.js"]) {
      const other = await widgetRequest(path, {});
      expect(other.headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'");
      expect(other.headers.get("x-frame-options"), path).toBe("DENY");
    }
  });

  it("serves one long-cached, versioned loader, the same bytes for everyone", async () => {
    const first = await widgetRequest("/widget.js", {});
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toContain("text/javascript");
    expect(first.headers.get("cache-control")).toContain("max-age=3600");
    expect(first.headers.get("x-guichet-widget-version")).toBe("1");
    const etag = first.headers.get("etag")!;
    const again = await widgetRequest("/widget.js", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(first.text).toContain("data-key");
    expect(first.text).not.toContain(anonymous.public_key);
  });
});
