import { afterAll, beforeAll, expect, it } from "vitest";
import { createAgent } from "./dispatch-fixtures";
import { api, createTenant, startSuiteInstance, testDb, type Tenant } from "./helpers";
import { startApp } from "./server";
import { createWidget, sendMessage, stored, visitorToken, widgetRequest } from "./widget-helpers";

// Each instance keeps a widget and its agent's state for the bubble's requests
// (lib/widgets/public.ts, the "widgets" topic of lib/db/changes.ts). What must
// stay immediate is proven across two app instances on one database: a change
// made through one instance, or by another process, is what the very next
// bubble request sees on the other — origins, activity, the agent's activity,
// the public key, the widget's existence.

const SHOP = "https://shop.example";
const DEV = "http://localhost:4020";

let second: Awaited<ReturnType<typeof startApp>>;
let tenant: Tenant;

beforeAll(async () => {
  tenant = await createTenant("pro");
  second = await startSuiteInstance();
});

afterAll(async () => second?.stop());

/** The visitor's conversations, through one instance: the lightest request that checks origin, token and widget. */
const list = (token: string, origin: string, at?: string) =>
  widgetRequest("/widget/v1/conversations", { origin, token, at });
const open = (token: string, origin: string, at?: string) =>
  widgetRequest("/widget/v1/conversations", { origin, token, json: {}, at });

async function widgetOnBoth(name: string) {
  const agent = await createAgent(tenant, { name: `Agent ${name}` });
  const widget = await createWidget(tenant, { agent: agent.id, name, allowed_origins: [SHOP, DEV] });
  const tokens = { shop: await visitorToken(widget.public_key, SHOP), dev: await visitorToken(widget.public_key, DEV) };
  // Both instances have served this widget from both origins (anything they keep is now warm).
  for (const at of [undefined, second.baseUrl]) {
    expect((await list(tokens.shop, SHOP, at)).status).toBe(200);
    expect((await list(tokens.dev, DEV, at)).status).toBe(200);
  }
  return { agent, widget, tokens };
}

it("refuses at once, on the other instance, an origin removed through one", async () => {
  const { widget, tokens } = await widgetOnBoth("Origines");
  const patched = await api(`/v1/widgets/${widget.id}`, {
    method: "PATCH",
    json: { allowed_origins: [SHOP] },
    as: { key: tenant.key },
  });
  expect(patched.status).toBe(200);
  for (const at of [second.baseUrl, undefined]) {
    const refused = await list(tokens.dev, DEV, at);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("widget_origin_not_allowed");
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    expect((await list(tokens.shop, SHOP, at)).status).toBe(200);
  }
});

it("says « indisponible » at once on the other instance when a widget is deactivated, and stores nothing", async () => {
  const { widget, tokens } = await widgetOnBoth("Fermeture");
  const conversation = await open(tokens.shop, SHOP, second.baseUrl);
  expect(conversation.status).toBe(201);
  const before = await stored(tenant.organizationId);
  const off = await api(`/v1/widgets/${widget.id}`, {
    method: "PATCH",
    json: { active: false },
    as: { key: tenant.key },
  });
  expect(off.status).toBe(200);

  const message = await sendMessage(tokens.shop, SHOP, conversation.body.data.id, "Bonjour");
  expect(message.status).toBe(403);
  expect(message.body.error.code).toBe("widget_unavailable");
  const refused = await sendMessage(tokens.shop, SHOP, conversation.body.data.id, "Bonjour");
  expect(refused.body.error.code).toBe("widget_unavailable");
  const onSecond = await widgetRequest(`/widget/v1/conversations/${conversation.body.data.id}/messages`, {
    origin: SHOP,
    token: tokens.shop,
    json: { content: "Bonjour" },
    at: second.baseUrl,
  });
  expect(onSecond.status).toBe(403);
  expect(onSecond.body.error.code).toBe("widget_unavailable");
  expect((await open(tokens.shop, SHOP, second.baseUrl)).body.error.code).toBe("widget_unavailable");
  expect(await stored(tenant.organizationId)).toEqual(before);

  // Back on: the next request on either instance opens a conversation again.
  await api(`/v1/widgets/${widget.id}`, { method: "PATCH", json: { active: true }, as: { key: tenant.key } });
  expect((await open(tokens.shop, SHOP, second.baseUrl)).status).toBe(201);
  expect((await open(tokens.shop, SHOP)).status).toBe(201);
});

it("follows the agent's activity: deactivated through one instance, unavailable on the other at once", async () => {
  const { agent, tokens } = await widgetOnBoth("Agent en pause");
  const off = await api(`/v1/agents/${agent.id}`, {
    method: "PATCH",
    json: { active: false },
    as: { key: tenant.key },
  });
  expect(off.status).toBe(200);
  for (const at of [second.baseUrl, undefined]) {
    const refused = await open(tokens.shop, SHOP, at);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("widget_unavailable");
  }
  await api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { active: true }, as: { key: tenant.key } });
  expect((await open(tokens.shop, SHOP, second.baseUrl)).status).toBe(201);
});

it("follows a change written by another process, a rotated key and a deleted widget on both instances at once", async () => {
  const { widget, tokens } = await widgetOnBoth("Autre processus");
  const db = await testDb();
  // Written by another process than both instances, as an operator would.
  await db.widget.update({ where: { id: widget.id }, data: { allowedOrigins: [DEV] } });
  for (const at of [undefined, second.baseUrl]) {
    const refused = await list(tokens.shop, SHOP, at);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("widget_origin_not_allowed");
    expect((await list(tokens.dev, DEV, at)).status).toBe(200);
  }

  const rotated = await api(`/v1/widgets/${widget.id}/rotate_public_key`, { method: "POST", as: { key: tenant.key } });
  expect(rotated.status).toBe(200);
  for (const at of [second.baseUrl, undefined]) {
    const refused = await list(tokens.dev, DEV, at);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("visitor_token_invalid");
  }
  const fresh = await visitorToken(rotated.body.data.public_key, DEV);
  expect((await list(fresh, DEV, second.baseUrl)).status).toBe(200);

  expect((await api(`/v1/widgets/${widget.id}`, { method: "DELETE", as: { key: tenant.key } })).status).toBe(200);
  for (const at of [second.baseUrl, undefined]) {
    const refused = await list(fresh, DEV, at);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("visitor_token_invalid");
  }
});
