import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { samplePdf } from "@/tests/support/pdf";
import { createAgent, upload } from "./dispatch-fixtures";
import { createTenant, testDb, type Tenant } from "./helpers";
import { sdkClient, sessionRunOf } from "./mcp-server-helpers";

// An MCP session's resources are its agent's knowledge documents, read through
// the official SDK client: listed a page at a time with the protocol's cursor,
// read as text (a PDF's text extracted), nothing of another agent or
// organization reachable, and every request counted against the run's limit.

let acme: Tenant;
let other: Tenant;
let agentId: string;
let client: Client;
const documents: Record<string, any>[] = [];
let pdf: Record<string, any>;
let foreign: Record<string, any>;
let sibling: Record<string, any>;

const FAQ = "# FAQ\nLivraison : 48 heures.\nRetours : 30 jours.\n";

async function expectProtocolError(call: Promise<unknown>, code: number): Promise<McpError> {
  const error = await call.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(McpError);
  expect((error as McpError).code).toBe(code);
  return error as McpError;
}

async function runCallCount(runId: string): Promise<number> {
  const windows = await (await testDb()).rateLimitWindow.findMany({ where: { key: `tool-calls:run:${runId}` } });
  return windows.reduce((sum, window) => sum + window.count, 0);
}

beforeAll(async () => {
  acme = await createTenant("pro");
  other = await createTenant("pro");
  agentId = (await createAgent(acme)).id;
  documents.push(await upload(acme, `/v1/agents/${agentId}/documents`, FAQ, "faq.md"));
  pdf = await upload(
    acme,
    `/v1/agents/${agentId}/documents`,
    samplePdf([["Conditions generales Acme", "Garantie : 2 ans."]]),
    "conditions.pdf",
  );
  documents.push(pdf);
  for (let i = 1; i <= 9; i++)
    documents.push(await upload(acme, `/v1/agents/${agentId}/documents`, `Note ${i}\n`, `note-${i}.txt`));
  sibling = await upload(
    acme,
    `/v1/agents/${(await createAgent(acme)).id}/documents`,
    "Un autre agent.\n",
    "autre.txt",
  );
  foreign = await upload(
    other,
    `/v1/agents/${(await createAgent(other)).id}/documents`,
    "Secret d'une autre organisation.\n",
    "secret.txt",
  );
  ({ client } = await sdkClient(agentId, acme.key));
});

afterAll(async () => client?.close());

describe("resources/list", () => {
  it("pages through the agent's documents with the protocol's cursor, and nothing else", async () => {
    expect(client.getServerCapabilities()?.resources).toBeDefined();
    const first = await client.listResources();
    expect(first.resources).toHaveLength(10);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await client.listResources({ cursor: first.nextCursor });
    expect(second.resources).toHaveLength(1);
    expect(second.nextCursor).toBeUndefined();
    const listed = [...first.resources, ...second.resources];
    expect(listed.map((resource) => resource.name).sort()).toEqual(
      documents.map((document) => document.filename).sort(),
    );
    expect(new Set(listed.map((resource) => resource.uri)).size).toBe(11);
    expect(listed.find((resource) => resource.name === "conditions.pdf")).toMatchObject({
      uri: `guichet://documents/${pdf.id}`,
      mimeType: "application/pdf",
      size: pdf.bytes,
    });
    expect(listed.some((resource) => resource.uri.endsWith(sibling.id) || resource.uri.endsWith(foreign.id))).toBe(
      false,
    );
  });

  it("refuses a cursor it did not hand out with invalid params", async () => {
    await expectProtocolError(client.listResources({ cursor: "bm90LWEtZmlsZQ" }), -32602);
  });
});

describe("resources/read", () => {
  it("reads a text document as written and a PDF's text, marked untrusted", async () => {
    const faq = await client.readResource({ uri: `guichet://documents/${documents[0].id}` });
    expect(faq.contents).toEqual([
      {
        uri: `guichet://documents/${documents[0].id}`,
        mimeType: "text/markdown",
        text: FAQ,
        _meta: { "guichet/untrusted": true, "guichet/truncated": false, "guichet/total_characters": FAQ.length },
      },
    ]);
    const conditions = await client.readResource({ uri: `guichet://documents/${pdf.id}` });
    expect(conditions.contents[0]).toMatchObject({ mimeType: "text/plain", _meta: { "guichet/untrusted": true } });
    expect((conditions.contents[0] as { text: string }).text).toBe("Conditions generales Acme\nGarantie : 2 ans.");
  });

  it("answers resource not found for an unknown uri, another agent's document and another organization's", async () => {
    for (const uri of [
      "guichet://documents/file_00000000000000000000000000",
      "file:///etc/passwd",
      `guichet://documents/${sibling.id}`,
      `guichet://documents/${foreign.id}`,
    ]) {
      const error = await expectProtocolError(client.readResource({ uri }), -32002);
      expect(error.message).not.toContain("Secret");
    }
  });
});

describe("limits", () => {
  it("count each request against the run, and refuse it with a typed code once the run's limit is reached", async () => {
    const run = await sessionRunOf(agentId);
    await client.listResources();
    await client.readResource({ uri: `guichet://documents/${documents[0].id}` });
    // The shared count is taken in blocks (lib/limits/lease.ts): it covers at least the requests made.
    expect(await runCallCount(run.id)).toBeGreaterThanOrEqual(2);

    const db = await testDb();
    const now = Math.floor(Date.now() / 60_000) * 60_000;
    for (const start of [now, now + 60_000]) {
      await db.rateLimitWindow.upsert({
        where: { key_windowStart: { key: `tool-calls:run:${run.id}`, windowStart: new Date(start) } },
        create: { key: `tool-calls:run:${run.id}`, windowStart: new Date(start), count: 10_000_000 },
        update: { count: 10_000_000 },
      });
    }
    const limited = await expectProtocolError(
      client.readResource({ uri: `guichet://documents/${documents[0].id}` }),
      -32000,
    );
    expect(limited.data).toMatchObject({ code: "RATE_LIMITED", retryable: true });
  });
});
