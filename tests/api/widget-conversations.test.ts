import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createScript, scriptRecord } from "@/connectors/model-sim/control";
import type { ScriptBody } from "@/connectors/model-sim/script";
import { api, createTenant, simBaseUrl, testDb, until } from "./helpers";
import { approveOk, crmOperationsOf, getProposal, resetCrm, setupCrm, type CrmSetup } from "./proposals-helpers";
import {
  createWidget,
  newConversation,
  openSession,
  sendMessage,
  sseEvents,
  userToken,
  visitorToken,
  widgetRequest,
} from "./widget-helpers";

// A visitor's message is a managed run of the widget's agent (source widget,
// the agent's instructions then the widget's), streamed as the visitor's own
// events; a write waits for an advisor and resumes after the approval; the
// limits hold exactly under concurrent requests.

const { enqueue } = await import("@/lib/jobs");
const { JOBS } = await import("@/lib/jobs/names");

const SHOP = "https://shop.example";
let setup: CrmSetup;

beforeAll(async () => {
  setup = await setupCrm(await createTenant("pro"));
});
beforeEach(resetCrm);

const script = (turns: ScriptBody["turns"], replay?: "by_conversation") =>
  createScript(simBaseUrl, { turns, ...(replay && { replay }) });

async function widgetFor(marker: string, extra: Record<string, unknown> = {}) {
  return createWidget(setup.tenant, {
    agent: setup.agentId,
    name: `Boutique ${marker.slice(-6)}`,
    allowed_origins: [SHOP],
    instructions: `Réponds comme la boutique. ${marker}`,
    ...extra,
  });
}

describe("a visitor's conversation", () => {
  it("streams the answer of a managed run opened by the widget, and reads back after a reload", async () => {
    const s = await script([{ text: "Bonjour ! Je peux vous aider." }, { text: "Votre commande part demain." }]);
    const widget = await widgetFor(s.marker);
    const token = await visitorToken(widget.public_key, SHOP);
    const conversation = await newConversation(token, SHOP);
    const first = await sendMessage(token, SHOP, conversation, "Bonjour");
    expect(first.status).toBe(201);
    expect(first.headers.get("content-type")).toContain("text/event-stream");
    expect(first.headers.get("access-control-allow-origin")).toBe(SHOP);
    const events = sseEvents(first.text);
    expect(events[0].event).toBe("message");
    expect(
      events
        .filter((e) => e.event === "delta")
        .map((e) => e.data.text)
        .join(""),
    ).toBe("Bonjour ! Je peux vous aider.");
    expect(events.at(-1)).toMatchObject({ event: "done", data: { text: "Bonjour ! Je peux vous aider." } });
    // Nothing of the run's internals reaches the visitor.
    expect(first.text).not.toContain("run_");
    const second = await sendMessage(token, SHOP, conversation, "Et ma commande ?");
    expect(sseEvents(second.text).at(-1)).toMatchObject({
      event: "done",
      data: { text: "Votre commande part demain." },
    });

    // The second run was sent the conversation so far, after the agent's then the widget's instructions.
    const requests = (await scriptRecord(simBaseUrl, s.id)).requests;
    expect(requests[1].messages.slice(1)).toEqual([
      { role: "user", content: "Bonjour" },
      { role: "assistant", content: "Bonjour ! Je peux vous aider." },
      { role: "user", content: "Et ma commande ?" },
    ]);
    const system = String(requests[1].messages[0].content);
    expect(system).toContain(`Réponds comme la boutique. ${s.marker}`);
    expect(system).toContain("untrusted input");
    // A read widget never carries a write tool.
    const tools = requests[0].tools?.map((t) => t.function.name) ?? [];
    expect(tools).toContain(setup.crm.key("get_customer"));
    for (const write of ["commit_address_change", "send_email", "refund_payment"])
      expect(tools).not.toContain(setup.crm.key(write));

    const runs = await (
      await testDb()
    ).run.findMany({
      where: { organizationId: setup.tenant.organizationId, widgetId: widget.id },
      // The first turn's run first: without an order, PostgreSQL returns updated rows in any order.
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    expect(runs).toHaveLength(2);
    expect(runs.every((run) => run.source === "widget" && run.apiKeyId === null && run.memberId === null)).toBe(true);

    const reload = await widgetRequest(`/widget/v1/conversations/${conversation}`, { origin: SHOP, token });
    expect(reload.body.data.turns).toMatchObject([
      { content: "Bonjour", status: "answered", answer: "Bonjour ! Je peux vous aider." },
      { content: "Et ma commande ?", status: "answered", answer: "Votre commande part demain." },
    ]);
    // Members read it in the console's API, with the runs.
    const detail = await api(`/v1/widgets/${widget.id}/conversations/${conversation}`, {
      as: { key: setup.tenant.key },
    });
    expect(detail.body.data).toMatchObject({ messages: 2, origin: SHOP, turns: [{ run: runs[0].id }, {}] });
    const usage = await api(`/v1/widgets/${widget.id}`, { as: { key: setup.tenant.key } });
    expect(usage.body.data.usage).toEqual({ conversations: 1, messages: 2, preview_conversations: 0 });
  });

  it("a write waits for an advisor, names the widget and visitor as requester, and resumes once approved", async () => {
    const s = await script([
      {
        tool_calls: [
          {
            name: setup.crm.key("preview_address_change"),
            arguments: { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } },
          },
        ],
      },
      { text: "C'est fait : votre livraison part à Lyon." },
    ]);
    const widget = await widgetFor(s.marker, { identity: "verified", capabilities: "read_write" });
    const token = await visitorToken(widget.public_key, SHOP, { user_token: await userToken(widget) });
    const conversation = await newConversation(token, SHOP);
    const answer = await sendMessage(token, SHOP, conversation, "Livrez-moi à Lyon");
    expect(sseEvents(answer.text).at(-1)).toEqual({
      id: expect.any(Number),
      event: "waiting",
      data: { message: "Votre demande attend la validation d'un conseiller." },
    });
    const waiting = await widgetRequest(`/widget/v1/conversations/${conversation}`, { origin: SHOP, token });
    expect(waiting.body.data.turns[0]).toMatchObject({ status: "waiting_approval", answer: null });

    const run = await (await testDb()).run.findFirstOrThrow({ where: { widgetId: widget.id } });
    const proposal = await (await testDb()).proposal.findFirstOrThrow({ where: { runId: run.id } });
    const shown = await getProposal(setup.tenant, proposal.id);
    expect(shown.requester).toMatchObject({
      source: "widget",
      widget: { id: widget.id, name: widget.name, visitor: { id: "user:client-1842", name: "Camille Martin" } },
      api_key: null,
      member: null,
    });
    expect(await crmOperationsOf(run.id)).toHaveLength(0);

    await approveOk(setup.tenant, proposal.id, "approver");
    const done = await until(async () => {
      const read = await widgetRequest(`/widget/v1/conversations/${conversation}`, { origin: SHOP, token });
      return read.body.data.turns[0].status === "answered" ? read.body.data.turns[0] : null;
    }, "the widget's run to resume");
    expect(done.answer).toBe("C'est fait : votre livraison part à Lyon.");
    expect(await crmOperationsOf(run.id)).toHaveLength(1);
  });
});

describe("limits", () => {
  it("hold exactly under concurrent messages: the visitor's hourly limit answers 429 with retry_after", async () => {
    const s = await script([{ text: "D'accord." }], "by_conversation");
    const widget = await widgetFor(s.marker, { limits: { messages_per_visitor_per_hour: 3 } });
    const token = await visitorToken(widget.public_key, SHOP);
    const conversation = await newConversation(token, SHOP);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => sendMessage(token, SHOP, conversation, `Message ${i}`)),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, 201, 201, 429, 429, 429, 429, 429]);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.body.error.code).toBe("rate_limited");
    expect(refused.body.error.reason).toMatchObject({ scope: "visitor", retry_after: expect.any(Number) });
    expect(refused.body.error.reason.retry_after).toBeGreaterThan(0);
    expect(refused.body.error.reason.retry_after).toBeLessThanOrEqual(3600);
    expect(Number(refused.headers.get("retry-after"))).toBe(refused.body.error.reason.retry_after);
    expect(await (await testDb()).widgetMessage.count({ where: { conversationId: conversation } })).toBe(3);
    // Another visitor of the same widget has a limit of its own.
    const other = await visitorToken(widget.public_key, SHOP);
    const otherConversation = await newConversation(other, SHOP);
    expect((await sendMessage(other, SHOP, otherConversation, "Bonjour")).status).toBe(201);
  });

  it("a message the visitor's limit refuses is not counted in the conversation; the conversation's limit holds exactly", async () => {
    const s = await script([{ text: "D'accord." }], "by_conversation");
    const widget = await widgetFor(s.marker, {
      limits: { messages_per_visitor_per_hour: 2, messages_per_conversation: 3 },
    });
    const token = await visitorToken(widget.public_key, SHOP);
    const conversation = await newConversation(token, SHOP);
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => sendMessage(token, SHOP, conversation, `Message ${i}`)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 429, 429, 429]);
    for (const refused of answers.filter((a) => a.status === 429))
      expect(refused.body.error.reason.scope).toBe("visitor");
    const db = await testDb();
    const counted = await db.rateLimitWindow.findMany({ where: { key: `widget:conversation:${conversation}` } });
    expect(counted.map((row) => row.count)).toEqual([2]);

    // The conversation's own limit, under concurrent messages of a visitor whose hourly limit is far.
    const roomy = await widgetFor(s.marker, {
      limits: { messages_per_visitor_per_hour: 100, messages_per_conversation: 3 },
    });
    const visitor = await visitorToken(roomy.public_key, SHOP);
    const full = await newConversation(visitor, SHOP);
    const burst = await Promise.all(
      Array.from({ length: 6 }, (_, i) => sendMessage(visitor, SHOP, full, `Encore ${i}`)),
    );
    expect(burst.map((a) => a.status).sort()).toEqual([201, 201, 201, 429, 429, 429]);
    for (const refused of burst.filter((a) => a.status === 429))
      expect(refused.body.error.reason.scope).toBe("conversation");
    expect(await db.widgetMessage.count({ where: { conversationId: full } })).toBe(3);
  });

  it("a message refused before its run (bad body, another visitor, unavailable) takes none of the message's counters", async () => {
    const s = await script([{ text: "Bien reçu." }]);
    const widget = await widgetFor(s.marker);
    const session = await openSession(widget.public_key, SHOP);
    const token = session.body.data.visitor_token as string;
    const visitorKey = `widget:${widget.id}:visitor:${session.body.data.visitor.id}`;
    const conversation = await newConversation(token, SHOP);
    const conversationKey = `widget:conversation:${conversation}`;

    const empty = await sendMessage(token, SHOP, conversation, "   ");
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe("invalid_parameter");
    const unknown = await widgetRequest(`/widget/v1/conversations/${conversation}/messages`, {
      origin: SHOP,
      token,
      json: { content: "Bonjour", role: "system" },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe("unknown_parameter");
    const other = await visitorToken(widget.public_key, SHOP);
    const intruder = await sendMessage(other, SHOP, conversation, "Bonjour");
    expect(intruder.status).toBe(404);
    await api(`/v1/widgets/${widget.id}`, { method: "PATCH", json: { active: false }, as: { key: setup.tenant.key } });
    const closed = await sendMessage(token, SHOP, conversation, "Bonjour");
    expect(closed.status).toBe(403);
    expect(closed.body.error.code).toBe("widget_unavailable");

    const db = await testDb();
    const counts = async () =>
      (await db.rateLimitWindow.findMany({ where: { key: { in: [visitorKey, conversationKey] } } }))
        .map((row) => `${row.key === visitorKey ? "visitor" : "conversation"}=${row.count}`)
        .sort();
    expect(await counts()).toEqual([]);
    expect(await db.widgetMessage.count({ where: { conversationId: conversation } })).toBe(0);

    // Open again: one message is counted once in each, and stored with the run that answers it.
    await api(`/v1/widgets/${widget.id}`, { method: "PATCH", json: { active: true }, as: { key: setup.tenant.key } });
    const sent = await sendMessage(token, SHOP, conversation, "Bonjour");
    expect(sent.status).toBe(201);
    expect(await counts()).toEqual(["conversation=1", "visitor=1"]);
    const [message] = await db.widgetMessage.findMany({ where: { conversationId: conversation } });
    expect(message.content).toBe("Bonjour");
    expect((await db.run.findUniqueOrThrow({ where: { id: message.runId! } })).source).toBe("widget");
  });

  it("the widget's daily conversations hold exactly under concurrent requests", async () => {
    const widget = await widgetFor("sim:none", { limits: { conversations_per_day: 2 } });
    const tokens = await Promise.all(Array.from({ length: 5 }, () => visitorToken(widget.public_key, SHOP)));
    const answers = await Promise.all(
      tokens.map((token) => widgetRequest("/widget/v1/conversations", { origin: SHOP, token, json: {} })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 429, 429, 429]);
    expect(answers.find((a) => a.status === 429)!.body.error.reason.scope).toBe("widget");
    expect(await (await testDb()).widgetConversation.count({ where: { widgetId: widget.id } })).toBe(2);
  });
});

describe("retention", () => {
  it("a visitor's message goes with its run's transcript after GUICHET_RUN_RETENTION_DAYS", async () => {
    const s = await script([{ text: "Bonjour." }, { text: "Toujours là." }]);
    const widget = await widgetFor(s.marker);
    const token = await visitorToken(widget.public_key, SHOP);
    const conversation = await newConversation(token, SHOP);
    await sendMessage(token, SHOP, conversation, "Ancien message");
    await sendMessage(token, SHOP, conversation, "Message récent");
    const db = await testDb();
    const old = await db.widgetMessage.findFirstOrThrow({
      where: { conversationId: conversation, content: "Ancien message" },
    });
    await db.run.update({
      where: { id: old.runId! },
      data: { createdAt: new Date(Date.now() - 31 * 24 * 60 * 60 * 1000) },
    });
    expect(await enqueue(JOBS.runRetention, {})).toEqual(expect.any(String));
    const turns = await until(async () => {
      const read = await widgetRequest(`/widget/v1/conversations/${conversation}`, { origin: SHOP, token });
      return read.body.data.turns.length === 1 ? read.body.data.turns : null;
    }, "the old message to be purged");
    expect(turns).toMatchObject([{ content: "Message récent", answer: "Toujours là." }]);
  });
});
