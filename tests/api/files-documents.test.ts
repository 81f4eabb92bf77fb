import { existsSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { arrangePlan, createAgent, storedPath, tempFiles, upload } from "./agents-helpers";
import { api, createTenant, testDb, type Tenant } from "./helpers";

// Knowledge documents: files carried by an agent, 20 at most, no expiry, in the
// plan's quotas, deleted only through their agent — and with it.

let acme: Tenant;
const docs = (agentId: string) => `/v1/agents/${agentId}/documents`;
const documentCount = async (agentId: string) => (await testDb()).file.count({ where: { agentId } });

beforeAll(async () => {
  acme = await createTenant("pro");
});

describe("POST /v1/agents/{agent}/documents", () => {
  it("stores a document without expiry, listed on the agent and readable as a file", async () => {
    const agent = await createAgent(acme);
    const response = await upload(acme, docs(agent.id), "# FAQ\n\nQ : délais ?\nR : 48 h.", "faq.md");
    expect(response.status).toBe(201);
    const doc = response.body.data;
    expect(doc).toMatchObject({ filename: "faq.md", mime_type: "text/markdown", agent: agent.id, expires_at: null });
    const listed = await api(docs(agent.id), { as: { key: acme.key } });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ data: [doc], next_cursor: null });
    expect((await api(`/v1/files/${doc.id}`, { as: { key: acme.key } })).body.data).toEqual(doc);
    expect((await api(`/v1/files/${doc.id}/content`, { as: { key: acme.key } })).body).toContain("48 h");
  });

  it("accepts 20 documents and refuses the 21st with 422 too_many_documents", async () => {
    const agent = await createAgent(acme);
    for (let i = 1; i <= 20; i++)
      expect((await upload(acme, docs(agent.id), `doc ${i}`, `doc-${i}.txt`)).status).toBe(201);
    const refused = await upload(acme, docs(agent.id), "doc 21", "doc-21.txt");
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("too_many_documents");
    expect(await documentCount(agent.id)).toBe(20);
    expect(tempFiles()).toEqual([]);
    // Another agent has its own 20.
    const other = await createAgent(acme);
    expect((await upload(acme, docs(other.id), "doc", "doc.txt")).status).toBe(201);
  });

  it("applies the same types and size limit as /v1/files", async () => {
    const tenant = await createTenant("pro");
    await arrangePlan(tenant, { maxFileBytes: 100 });
    const agent = await createAgent(tenant);
    expect(
      (await upload(tenant, docs(agent.id), Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), "photo.txt")).status,
    ).toBe(415);
    const big = await upload(tenant, docs(agent.id), "x".repeat(101), "big.txt");
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe("file_too_large");
    expect(await documentCount(agent.id)).toBe(0);
  });

  it("counts documents in the file and storage quotas", async () => {
    const tenant = await createTenant("pro");
    await arrangePlan(tenant, { maxFiles: 2, storageBytes: 100 });
    const agent = await createAgent(tenant);
    expect((await upload(tenant, "/v1/files", "x".repeat(60), "plain.txt")).status).toBe(201);
    const overBytes = await upload(tenant, docs(agent.id), "y".repeat(41), "doc.txt");
    expect(overBytes.status).toBe(400);
    expect(overBytes.body.error.code).toBe("storage_quota_exceeded");
    expect((await upload(tenant, docs(agent.id), "y".repeat(40), "doc.txt")).status).toBe(201);
    const overFiles = await upload(tenant, "/v1/files", "z", "z.txt");
    expect(overFiles.status).toBe(400);
    expect(overFiles.body.error.reason.quota).toBe("files");
  });

  it("answers 404 for an unknown agent without storing anything", async () => {
    const before = await (await testDb()).file.count({ where: { organizationId: acme.organizationId } });
    const response = await upload(acme, docs("agt_01k6examplea0000000000000"), "x", "x.txt");
    expect(response.status).toBe(404);
    expect(await (await testDb()).file.count({ where: { organizationId: acme.organizationId } })).toBe(before);
  });
});

describe("deleting documents", () => {
  it("refuses DELETE /v1/files/{file} on a document with 409 file_in_use, keeping row and bytes", async () => {
    const agent = await createAgent(acme);
    const doc = (await upload(acme, docs(agent.id), "kept", "kept.txt")).body.data;
    const onDisk = await storedPath(doc.id);
    const response = await api(`/v1/files/${doc.id}`, { method: "DELETE", as: { key: acme.key } });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe("file_in_use");
    expect(await documentCount(agent.id)).toBe(1);
    expect(existsSync(onDisk)).toBe(true);
  });

  it("deletes a document through its agent, rows and bytes; another agent's path answers 404", async () => {
    const agent = await createAgent(acme);
    const other = await createAgent(acme);
    const doc = (await upload(acme, docs(agent.id), "bye", "bye.txt")).body.data;
    const onDisk = await storedPath(doc.id);
    expect((await api(`${docs(other.id)}/${doc.id}`, { method: "DELETE", as: { key: acme.key } })).status).toBe(404);
    expect(existsSync(onDisk)).toBe(true);
    const response = await api(`${docs(agent.id)}/${doc.id}`, { method: "DELETE", as: { key: acme.key } });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ id: doc.id, deleted: true });
    expect(await documentCount(agent.id)).toBe(0);
    expect(existsSync(onDisk)).toBe(false);
  });

  it("deletes an agent's documents and their bytes with the agent", async () => {
    const agent = await createAgent(acme);
    const paths = [];
    for (const name of ["a.txt", "b.csv", "c.md"]) {
      const doc = (await upload(acme, docs(agent.id), `content of ${name}`, name)).body.data;
      paths.push(await storedPath(doc.id));
    }
    const plain = (await upload(acme, "/v1/files", "plain stays", "plain.txt")).body.data;
    expect(paths.every((p) => existsSync(p))).toBe(true);
    const response = await api(`/v1/agents/${agent.id}`, { method: "DELETE", as: { key: acme.key } });
    expect(response.status).toBe(200);
    expect(await documentCount(agent.id)).toBe(0);
    expect(paths.filter((p) => existsSync(p))).toEqual([]);
    expect(existsSync(await storedPath(plain.id))).toBe(true);
    expect((await api(docs(agent.id), { as: { key: acme.key } })).status).toBe(404);
  });
});
