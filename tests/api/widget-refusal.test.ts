import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createScript } from "@/connectors/model-sim/control";
import { api, createTenant, simBaseUrl, testDb, until } from "./helpers";
import { crmOperationsOf, resetCrm, setupCrm, type CrmSetup } from "./proposals-helpers";
import { createWidget, newConversation, sendMessage, sseEvents, visitorToken, widgetRequest } from "./widget-helpers";

// A refused write from the bubble is told to the visitor in plain words. The
// approver's reason always reaches the agent, but the visitor reads it only
// when the approver marked it shareable — and since the model may repeat it,
// the model's reply to the refusal is withheld from the visitor otherwise.

const SHOP = "https://shop.example";
let setup: CrmSetup;

beforeAll(async () => {
  setup = await setupCrm(await createTenant("pro"));
});
beforeEach(resetCrm);

/** A visitor asks for a write, an approver refuses it (shareable or not); the visitor's views of the turn. */
async function refusedTurn(reason: string, share: boolean | undefined) {
  const s = await createScript(simBaseUrl, {
    turns: [
      {
        tool_calls: [
          {
            name: setup.crm.key("preview_address_change"),
            arguments: { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } },
          },
        ],
      },
      // A model that repeats the reason it was told, word for word.
      { text: `Un conseiller a refusé : ${reason}` },
    ],
  });
  const widget = await createWidget(setup.tenant, {
    agent: setup.agentId,
    name: `Boutique ${s.marker.slice(-6)}`,
    allowed_origins: [SHOP],
    instructions: `Réponds comme la boutique. ${s.marker}`,
    capabilities: "read_write",
  });
  const token = await visitorToken(widget.public_key, SHOP);
  const conversation = await newConversation(token, SHOP);
  const asked = sseEvents((await sendMessage(token, SHOP, conversation, "Livrez-moi à Lyon")).text);
  const waiting = asked.at(-1)!;
  expect(waiting.event).toBe("waiting");
  const messageId = asked[0].data.id as string;

  const run = await (await testDb()).run.findFirstOrThrow({ where: { widgetId: widget.id } });
  const proposal = await (await testDb()).proposal.findFirstOrThrow({ where: { runId: run.id } });
  const refused = await api(`/v1/proposals/${proposal.id}/refuse`, {
    json: { reason, ...(share === undefined ? {} : { share_reason_with_requester: share }) },
    as: await setup.tenant.as("approver"),
  });
  expect(refused.status).toBe(200);
  expect(refused.body.data.decisions[0]).toMatchObject({ reason, share_reason_with_requester: share === true });

  const read = async () => widgetRequest(`/widget/v1/conversations/${conversation}`, { origin: SHOP, token });
  const turn = await until(async () => {
    const answer = await read();
    return answer.body.data.turns[0].status === "refused" ? answer : null;
  }, "the widget's run to answer after the refusal");
  // Re-attached after the wait, as the bubble does on return.
  const events = await widgetRequest(`/widget/v1/conversations/${conversation}/messages/${messageId}/events`, {
    origin: SHOP,
    token,
    headers: { "last-event-id": String(waiting.id) },
  });
  expect(await crmOperationsOf(run.id)).toHaveLength(0);
  return { turn, events, run, proposal };
}

describe("a refused write, seen by the widget's visitor", () => {
  it("says it plainly and never shows a reason the approver did not mark shareable", async () => {
    const reason = "Client signalé pour fraude au service recouvrement";
    for (const share of [undefined, false]) {
      const { turn, events, run, proposal } = await refusedTurn(reason, share);
      expect(turn.body.data.turns[0]).toEqual({
        id: expect.any(String),
        content: "Livrez-moi à Lyon",
        status: "refused",
        answer: null,
        refusal: { message: "Votre demande n'a pas été acceptée.", reason: null },
        created_at: expect.any(String),
      });
      expect(turn.text).not.toContain("fraude");
      expect(events.status).toBe(200);
      const streamed = sseEvents(events.text);
      expect(streamed.filter((e) => e.event === "delta")).toEqual([]);
      expect(streamed.at(-1)).toMatchObject({
        event: "refused",
        data: { message: "Votre demande n'a pas été acceptée.", reason: null, text: null },
      });
      expect(events.text).not.toContain("fraude");
      // The agent was still told why (it re-plans with it), and the decision keeps it unshared.
      const stored = await (await testDb()).decision.findFirstOrThrow({ where: { proposalId: proposal.id } });
      expect(stored).toMatchObject({ decision: "refuse", reason, shareReason: false });
      const runRow = await (await testDb()).run.findUniqueOrThrow({ where: { id: run.id } });
      expect(JSON.stringify(runRow.output)).toContain("fraude");
    }
  });

  it("shows the reason, and the agent's reply, when the approver marked it shareable", async () => {
    const reason = "Cette adresse n'est pas desservie depuis notre entrepôt";
    const { turn, events, proposal } = await refusedTurn(reason, true);
    expect(turn.body.data.turns[0]).toMatchObject({
      status: "refused",
      answer: `Un conseiller a refusé : ${reason}`,
      refusal: { message: "Votre demande n'a pas été acceptée.", reason },
    });
    expect(sseEvents(events.text).at(-1)).toMatchObject({
      event: "refused",
      data: { message: "Votre demande n'a pas été acceptée.", reason, text: `Un conseiller a refusé : ${reason}` },
    });
    const stored = await (await testDb()).decision.findFirstOrThrow({ where: { proposalId: proposal.id } });
    expect(stored.shareReason).toBe(true);
  });

  it("refuses a share flag that is not a boolean, and stores no decision", async () => {
    const proposal = await (
      await testDb()
    ).proposal.findFirst({
      where: { organizationId: setup.tenant.organizationId, status: "refused" },
    });
    expect(proposal).not.toBeNull();
    const before = await (await testDb()).decision.count({ where: { proposalId: proposal!.id } });
    const bad = await api(`/v1/proposals/${proposal!.id}/refuse`, {
      json: { reason: "non", share_reason_with_requester: "oui" },
      as: await setup.tenant.as("approver"),
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_parameter");
    expect(await (await testDb()).decision.count({ where: { proposalId: proposal!.id } })).toBe(before);
  });
});
