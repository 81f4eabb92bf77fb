import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createScript } from "@/connectors/model-sim/control";
import { baseUrl, createTenant, simBaseUrl } from "./helpers";
import { resetCrm, setupCrm, type CrmSetup } from "./proposals-helpers";
import { createWidget, newConversation, sseEvents, visitorToken, widgetRequest } from "./widget-helpers";

// A network cut in the middle of an answer: the bubble's stream of
// POST …/messages drops after a few events, the run goes on in the background,
// and re-attaching with Last-Event-ID on GET …/messages/{message}/events gives
// exactly the rest — the visitor reads the whole answer once, no gap, no repeat.

const SHOP = "https://shop.example";
let setup: CrmSetup;

beforeAll(async () => {
  setup = await setupCrm(await createTenant("pro"));
});
beforeEach(resetCrm);

type Event = { id: number; event: string; data: any };

/** Reads the SSE answer of a visitor message until `stopAfter` says so, then drops the connection. */
async function postThenCut(token: string, conversation: string, content: string, stopAfter: (e: Event[]) => boolean) {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/widget/v1/conversations/${conversation}/messages`, {
    method: "POST",
    headers: { origin: SHOP, authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ content }),
    signal: controller.signal,
  });
  expect(response.status).toBe(201);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const seen: Event[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error("the answer ended before the cut");
    buffer += decoder.decode(value, { stream: true });
    // Only whole events count as received; a half-read one is lost with the connection, as in a browser.
    const end = buffer.lastIndexOf("\n\n");
    if (end < 0) continue;
    for (const event of sseEvents(buffer.slice(0, end + 2))) {
      seen.push(event);
      if (stopAfter(seen)) {
        controller.abort();
        await reader.cancel().catch(() => undefined);
        return seen;
      }
    }
    buffer = buffer.slice(end + 2);
  }
}

const deltas = (events: Event[]) =>
  events
    .filter((e) => e.event === "delta")
    .map((e) => e.data.text)
    .join("");

describe("a network cut mid-stream", () => {
  it("re-attaches with Last-Event-ID and shows the rest of the answer exactly once", async () => {
    const opening = "Je regarde votre dossier client, un instant s'il vous plaît. ";
    const closing = "Votre commande C-1842 part demain matin de notre entrepôt de Lyon.";
    const s = await createScript(simBaseUrl, {
      turns: [
        { text: opening, tool_calls: [{ name: setup.crm.key("get_customer"), arguments: { customer_id: "C-1842" } }] },
        // The second half comes later: the cut falls while the run is still answering.
        { text: closing, delay_ms: 1_500 },
      ],
    });
    const widget = await createWidget(setup.tenant, {
      agent: setup.agentId,
      name: `Boutique ${s.marker.slice(-6)}`,
      allowed_origins: [SHOP],
      instructions: `Réponds comme la boutique. ${s.marker}`,
    });
    const token = await visitorToken(widget.public_key, SHOP);
    const conversation = await newConversation(token, SHOP);

    // Cut after the first streamed piece of text: the answer is mid-way.
    const before = await postThenCut(token, conversation, "Où en est ma commande ?", (seen) =>
      seen.some((e) => e.event === "delta"),
    );
    expect(before[0].event).toBe("message");
    const messageId = before[0].data.id as string;
    const lastId = before.at(-1)!.id;
    expect(deltas(before).length).toBeGreaterThan(0);
    expect(deltas(before).length).toBeLessThan(opening.length);
    expect(before.some((e) => e.event === "done")).toBe(false);

    const after = await widgetRequest(`/widget/v1/conversations/${conversation}/messages/${messageId}/events`, {
      origin: SHOP,
      token,
      headers: { "last-event-id": String(lastId) },
    });
    expect(after.status).toBe(200);
    expect(after.headers.get("content-type")).toContain("text/event-stream");
    const rest = sseEvents(after.text);
    // No repeat: every event re-sent comes after the last one received, in order.
    expect(rest.length).toBeGreaterThan(0);
    expect(rest.every((e) => e.id > lastId)).toBe(true);
    const ids = [...before.slice(1), ...rest].map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // No gap: the two halves make the whole streamed text, once.
    expect(deltas(before) + deltas(rest)).toBe(opening + closing);
    expect(rest.at(-1)).toMatchObject({ event: "done", data: { text: closing } });

    // A reload reads the answer once too.
    const reload = await widgetRequest(`/widget/v1/conversations/${conversation}`, { origin: SHOP, token });
    expect(reload.body.data.turns).toMatchObject([{ status: "answered", answer: closing }]);

    // Re-attaching from the start replays the same events, byte for byte: the stream is the stored run's.
    const replay = sseEvents(
      (
        await widgetRequest(`/widget/v1/conversations/${conversation}/messages/${messageId}/events`, {
          origin: SHOP,
          token,
        })
      ).text,
    );
    expect(replay.map((e) => e.id)).toEqual(ids);
    expect(deltas(replay)).toBe(opening + closing);
  });
});
