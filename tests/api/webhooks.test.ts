import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { api, baseUrl, createTenant, storedText, testDb, until, type Tenant } from "./helpers";
import { approveOk, previewAddress, setupCrm, type CrmSetup } from "./proposals-helpers";
import { auditEventFor, auditPage } from "./audit-helpers";
import { startReceiver, type Receiver } from "./webhook-receiver";

// Webhook endpoints over HTTP, and deliveries seen by a real receiver that
// verifies Standard Webhooks signatures. The suite's servers poll the outbox
// every 500 ms, retry after 300 ms doubling, give an attempt 5 s and disable
// an endpoint after four failures in a row (outboxTimings in server.ts).

let setup: CrmSetup;
let tenant: Tenant;
let other: Tenant;
let receiver: Receiver;

beforeAll(async () => {
  tenant = await createTenant("pro");
  other = await createTenant("pro");
  setup = await setupCrm(tenant);
  receiver = await startReceiver();
});
afterAll(async () => receiver?.close());
// Each test starts with no endpoint of the tenant and an empty plan: one test's leftovers would receive the next one's events.
afterEach(async () => {
  receiver.plan.length = 0;
  await (await testDb()).webhookEndpoint.deleteMany({ where: { organizationId: tenant.organizationId } });
});

async function createEndpoint(events: string[], url = receiver.url, who: Tenant = tenant) {
  const response = await api("/v1/webhook_endpoints", { json: { url, events }, as: await who.as("admin") });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data as { id: string; secret: string; secret_prefix: string };
}

async function deliveries(endpointId: string) {
  const response = await api(`/v1/webhook_endpoints/${endpointId}/deliveries`, { as: await tenant.as("admin") });
  expect(response.status).toBe(200);
  return response.body.data as Array<Record<string, any>>;
}

async function proposalId(): Promise<string> {
  const preview = await previewAddress(setup, await setup.run(), "ADDR-2");
  expect(preview.ok, JSON.stringify(preview)).toBe(true);
  return preview.evidence.proposal.id as string;
}

const hooksOf = (type: string, proposal: string) =>
  receiver.received.filter((hook) => hook.payload?.type === type && hook.payload?.data?.proposal === proposal);

describe("webhook endpoints", () => {
  it("returns the secret once, stores it encrypted and lists without it", async () => {
    const created = await createEndpoint(["proposal.created"]);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    expect(created.secret.startsWith(created.secret_prefix)).toBe(true);
    const list = await api("/v1/webhook_endpoints", { as: await tenant.as("owner") });
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: { id: string }) => e.id)).toContain(created.id);
    expect(JSON.stringify(list.body)).not.toContain(created.secret);
    const one = await api(`/v1/webhook_endpoints/${created.id}`, { as: await tenant.as("admin") });
    expect(one.body.data).not.toHaveProperty("secret");
    expect(await storedText()).not.toContain(created.secret.slice("whsec_".length));
    const rotated = await api(`/v1/webhook_endpoints/${created.id}/rotate_secret`, {
      method: "POST",
      as: await tenant.as("admin"),
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).not.toBe(created.secret);
    await api(`/v1/webhook_endpoints/${created.id}`, { method: "DELETE", as: await tenant.as("admin") });
  });

  it("is for owners and admins in the console only", async () => {
    for (const role of ["developer", "approver", "viewer"] as const) {
      const response = await api("/v1/webhook_endpoints", {
        json: { url: receiver.url, events: ["run.completed"] },
        as: await tenant.as(role),
      });
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe("forbidden");
    }
    const byKey = await api("/v1/webhook_endpoints", { as: { key: tenant.key } });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.code).toBe("forbidden");
    const db = await testDb();
    expect(await db.webhookEndpoint.count({ where: { organizationId: tenant.organizationId } })).toBe(0);
  });

  it("answers 404 for another organization's endpoint and its deliveries", async () => {
    const theirs = await createEndpoint(["run.completed"], receiver.url, other);
    const admin = await tenant.as("admin");
    for (const [method, path] of [
      ["GET", ""],
      ["PATCH", ""],
      ["DELETE", ""],
      ["POST", "/rotate_secret"],
      ["GET", "/deliveries"],
      ["POST", "/deliveries/msg_00000000000000000000000000/resend"],
    ] as const) {
      const response = await api(`/v1/webhook_endpoints/${theirs.id}${path}`, {
        method,
        ...(method === "PATCH" && { json: { enabled: false } }),
        as: admin,
      });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.error.code).toBe("not_found");
    }
    const db = await testDb();
    expect(await db.webhookEndpoint.findUnique({ where: { id: theirs.id } })).toMatchObject({ status: "enabled" });
  });

  it("refuses a loopback or private URL, an unknown event and an unknown field", async () => {
    const admin = await tenant.as("admin");
    for (const url of [receiver.loopbackUrl, "http://10.0.0.7/hook", "http://169.254.169.254/latest"]) {
      const response = await api("/v1/webhook_endpoints", { json: { url, events: ["run.completed"] }, as: admin });
      expect(response.status, url).toBe(422);
      expect(response.body.error.code).toBe("url_not_allowed");
      expect(response.body.error.errors[0].field).toBe("url");
    }
    const badEvent = await api("/v1/webhook_endpoints", {
      json: { url: receiver.url, events: ["proposal.exploded"] },
      as: admin,
    });
    expect(badEvent.status).toBe(400);
    expect(badEvent.body.error.code).toBe("invalid_parameter");
    const extra = await api("/v1/webhook_endpoints", {
      json: { url: receiver.url, events: ["run.completed"], secret: "mine" },
      as: admin,
    });
    expect(extra.status).toBe(400);
    expect(extra.body.error.code).toBe("unknown_parameter");
    const db = await testDb();
    expect(await db.webhookEndpoint.count({ where: { organizationId: tenant.organizationId } })).toBe(0);
  });
});

describe("deliveries", () => {
  it("signs each event, carries no arguments, and logs the delivery", async () => {
    const endpoint = await createEndpoint(["proposal.created", "proposal.approved"]);
    const id = await proposalId();
    const created = await until(async () => hooksOf("proposal.created", id)[0], "proposal.created");
    expect(() => receiver.verify(created, endpoint.secret)).not.toThrow();
    expect(() => receiver.verify(created, `whsec_${Buffer.alloc(32, 1).toString("base64")}`)).toThrow();
    expect(created.id).toMatch(/^msg_/);
    expect(created.payload).toMatchObject({
      type: "proposal.created",
      data: {
        proposal: id,
        status: "pending",
        console_url: `${baseUrl}/approbations/${id}`,
        approver_roles: expect.arrayContaining(["approver"]),
      },
    });
    expect(Object.keys(created.payload.data).sort()).toEqual(
      [
        "amount",
        "approvals_required",
        "approver_roles",
        "console_url",
        "effect",
        "expires_at",
        "irreversible",
        "proposal",
        "recipients_count",
        "records_affected",
        "rule",
        "run",
        "status",
        "tool",
      ].sort(),
    );
    expect(created.body).not.toMatch(/"(arguments|changes|result|destination|address_id)"/);
    await approveOk(tenant, id, "approver");
    const approved = await until(async () => hooksOf("proposal.approved", id)[0], "proposal.approved");
    expect(() => receiver.verify(approved, endpoint.secret)).not.toThrow();
    expect(approved.payload.data.status).toBe("approved");
    const log = await deliveries(endpoint.id);
    expect(log.find((d) => d.id === created.id)).toMatchObject({
      status: "succeeded",
      attempts: 1,
      response_status: 200,
      event_type: "proposal.created",
      duration_ms: expect.any(Number),
    });
    await api(`/v1/webhook_endpoints/${endpoint.id}`, { method: "DELETE", as: await tenant.as("admin") });
  });

  it("retries after a 500 and a timeout with the same webhook-id, each attempt signed", async () => {
    const endpoint = await createEndpoint(["proposal.created"]);
    receiver.plan.push(500, "hang");
    const id = await proposalId();
    const attempts = await until(async () => {
      const seen = hooksOf("proposal.created", id);
      return seen.length >= 3 && seen;
    }, "three attempts");
    expect(attempts.map((hook) => hook.answered)).toEqual([500, "hang", 200]);
    expect(new Set(attempts.map((hook) => hook.id)).size).toBe(1);
    for (const hook of attempts) expect(() => receiver.verify(hook, endpoint.secret)).not.toThrow();
    const delivery = await until(
      async () => (await deliveries(endpoint.id)).find((d) => d.id === attempts[0].id && d.status === "succeeded"),
      "the delivery to succeed",
    );
    expect(delivery).toMatchObject({ attempts: 3, response_status: 200, last_error: null });
    await api(`/v1/webhook_endpoints/${endpoint.id}`, { method: "DELETE", as: await tenant.as("admin") });
  });

  it("disables an endpoint after repeated failures; « Renvoyer » once it is enabled again", async () => {
    const endpoint = await createEndpoint(["proposal.created"]);
    receiver.plan.push(500, 500, 500, 500, 500, 500);
    const id = await proposalId();
    const disabled = await until(async () => {
      const one = await api(`/v1/webhook_endpoints/${endpoint.id}`, { as: await tenant.as("admin") });
      return one.body.data.status === "disabled" && one.body.data;
    }, "the endpoint to be disabled");
    expect(disabled).toMatchObject({ disabled_reason: "repeated_failures", consecutive_failures: 4 });
    const [delivery] = await deliveries(endpoint.id);
    expect(delivery).toMatchObject({ status: "pending", attempts: 4, response_status: 500, last_error: "http_500" });
    expect(hooksOf("proposal.created", id)).toHaveLength(4);
    const admin = await tenant.as("admin");
    const refused = await api(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${delivery.id}/resend`, {
      method: "POST",
      as: admin,
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("conflict");
    receiver.plan.length = 0;
    const enabled = await api(`/v1/webhook_endpoints/${endpoint.id}`, {
      json: { enabled: true },
      method: "PATCH",
      as: admin,
    });
    expect(enabled.body.data).toMatchObject({ status: "enabled", disabled_reason: null, consecutive_failures: 0 });
    // The trail says Guichet disabled it and who enabled it again.
    const byOutbox = await auditEventFor(admin, "webhook_endpoint.disabled", endpoint.id);
    expect(byOutbox.actor).toEqual({ type: "system", id: null, label: null });
    expect(byOutbox.details).toEqual({ reason: "repeated_failures", consecutive_failures: 4 });
    const reEnabled = await auditEventFor(admin, "webhook_endpoint.enabled", endpoint.id);
    expect(reEnabled.actor.label).toBe(tenant.emails.admin);
    expect(reEnabled.details).toEqual({ previous_reason: "repeated_failures", cleared_failures: 4 });
    await until(
      async () => (await deliveries(endpoint.id))[0].status === "succeeded",
      "the pending delivery to go out once enabled",
    );
    const resent = await api(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${delivery.id}/resend`, {
      method: "POST",
      as: admin,
    });
    expect(resent.status).toBe(200);
    await until(async () => hooksOf("proposal.created", id).length === 6, "the resent attempt");
    expect(new Set(hooksOf("proposal.created", id).map((hook) => hook.id))).toEqual(new Set([delivery.id]));
    await api(`/v1/webhook_endpoints/${endpoint.id}`, { method: "DELETE", as: admin });
  });
});

describe("the audit trail of endpoints", () => {
  it("records creation, changes, pause, re-enabling, rotation and deletion, never the secret nor the URL's query", async () => {
    const admin = await tenant.as("admin");
    const owner = await tenant.as("owner");
    const start = new Date().toISOString();
    const created = await api("/v1/webhook_endpoints", {
      json: { url: `${receiver.url}?token=receiver-token-1`, events: ["proposal.created"] },
      as: admin,
    });
    expect(created.status).toBe(201);
    const { id, secret, secret_prefix } = created.body.data as { id: string; secret: string; secret_prefix: string };
    const creation = await auditEventFor(owner, "webhook_endpoint.created", id);
    expect(creation.actor.label).toBe(tenant.emails.admin);
    expect(creation.target).toEqual({ type: "webhook_endpoint", id });
    expect(creation.details).toEqual({ url: receiver.url, events: ["proposal.created"] });

    const patch = (json: unknown) => api(`/v1/webhook_endpoints/${id}`, { method: "PATCH", json, as: admin });
    expect((await patch({ events: ["proposal.created", "run.failed"], description: "CRM" })).status).toBe(200);
    expect((await auditEventFor(owner, "webhook_endpoint.updated", id)).details).toEqual({
      fields: ["events", "description"],
    });
    // Only what changed: the same events again record nothing.
    expect((await patch({ events: ["proposal.created", "run.failed"] })).status).toBe(200);
    await auditEventFor(owner, "webhook_endpoint.updated", id);

    expect((await patch({ enabled: false })).status).toBe(200);
    expect((await auditEventFor(owner, "webhook_endpoint.disabled", id)).details).toEqual({ previous_reason: null });
    expect((await patch({ enabled: true })).status).toBe(200);
    expect((await auditEventFor(owner, "webhook_endpoint.enabled", id)).details).toEqual({
      previous_reason: "manual",
      cleared_failures: 0,
    });

    const rotated = await api(`/v1/webhook_endpoints/${id}/rotate_secret`, { method: "POST", as: admin });
    expect(rotated.status).toBe(200);
    const rotation = await auditEventFor(owner, "webhook_endpoint.secret_rotated", id);
    expect(rotation.details).toEqual({
      previous_prefix: secret_prefix,
      prefix: rotated.body.data.secret_prefix,
    });

    expect((await api(`/v1/webhook_endpoints/${id}`, { method: "DELETE", as: admin })).status).toBe(200);
    expect((await auditEventFor(owner, "webhook_endpoint.deleted", id)).details).toEqual({ url: receiver.url });

    const trail = await auditPage(owner, { target: id, from: start, limit: "100" });
    expect(trail.data.map((event) => event.action).reverse()).toEqual([
      "webhook_endpoint.created",
      "webhook_endpoint.updated",
      "webhook_endpoint.disabled",
      "webhook_endpoint.enabled",
      "webhook_endpoint.secret_rotated",
      "webhook_endpoint.deleted",
    ]);
    const stored = JSON.stringify(await (await testDb()).auditEvent.findMany({ where: { targetId: id } }));
    for (const leaked of [secret, secret.slice("whsec_".length), rotated.body.data.secret, "receiver-token-1"])
      expect(stored).not.toContain(leaked);
  });

  it("records nothing for a refused change or another organization's endpoint", async () => {
    const theirs = await createEndpoint(["run.completed"], receiver.url, other);
    const admin = await tenant.as("admin");
    const refused = await api(`/v1/webhook_endpoints/${theirs.id}`, { method: "DELETE", as: admin });
    expect(refused.status).toBe(404);
    const mine = await createEndpoint(["run.completed"]);
    const privateUrl = await api(`/v1/webhook_endpoints/${mine.id}`, {
      method: "PATCH",
      json: { url: "http://10.0.0.7/hook" },
      as: admin,
    });
    expect(privateUrl.status).toBe(422);
    const db = await testDb();
    expect(await db.auditEvent.findMany({ where: { targetId: theirs.id }, select: { action: true } })).toEqual([
      { action: "webhook_endpoint.created" },
    ]);
    expect(
      await db.auditEvent.count({ where: { targetId: mine.id, action: { not: "webhook_endpoint.created" } } }),
    ).toBe(0);
  });
});
