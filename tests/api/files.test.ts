import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import http from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { arrangePlan, storedPath, tempFiles, upload, uploadForm } from "./agents-helpers";
import { api, baseUrl, createTenant, testDb, until, type Tenant } from "./helpers";

// /v1/files: multipart upload streamed to disk, type from the content, per-file
// size and plan quotas, expiry, download, delete.

let acme: Tenant;
const sha256 = (content: Buffer | string) => createHash("sha256").update(content).digest("hex");
const fileCount = async (tenant: Tenant) =>
  (await testDb()).file.count({ where: { organizationId: tenant.organizationId } });
const pdf = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");
const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
const zip = Buffer.concat([Buffer.from("504b0304140000000800", "hex"), Buffer.alloc(40, 1)]);

beforeAll(async () => {
  acme = await createTenant("pro");
});

describe("POST /v1/files", () => {
  it("stores the bytes under the data directory with size, SHA-256 and an expiry from the plan", async () => {
    const content = "Bonjour, voici des notes.\nLigne 2 — accentuée.\n";
    const before = Date.now();
    const response = await upload(acme, "/v1/files", content, "notes.txt");
    expect(response.status).toBe(201);
    const file = response.body.data;
    expect(Object.keys(file).sort()).toEqual([
      "agent",
      "bytes",
      "created_at",
      "expires_at",
      "filename",
      "id",
      "mime_type",
      "sha256",
    ]);
    expect(file).toMatchObject({
      filename: "notes.txt",
      bytes: Buffer.byteLength(content),
      mime_type: "text/plain",
      sha256: sha256(content),
      agent: null,
    });
    expect(file.id).toMatch(/^file_[0-9a-z]{26}$/);
    const ttl = Date.parse(file.expires_at) - before;
    expect(ttl).toBeGreaterThan(30 * 86_400_000 - 60_000);
    expect(ttl).toBeLessThan(30 * 86_400_000 + 60_000);
    const onDisk = await storedPath(file.id);
    expect(onDisk).toContain(`files/${acme.organizationId}/${file.id}`);
    expect(sha256((await import("node:fs")).readFileSync(onDisk))).toBe(file.sha256);

    const read = await api(`/v1/files/${file.id}`, { as: { key: acme.key } });
    expect(read.body.data).toEqual(file);
    const content2 = await fetch(`${baseUrl}/v1/files/${file.id}/content`, {
      headers: { authorization: `Bearer ${acme.key}` },
    });
    expect(content2.status).toBe(200);
    expect(content2.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(content2.headers.get("content-disposition")).toContain("notes.txt");
    expect(await content2.text()).toBe(content);
  });

  it.each([
    ["plain text without extension", "just text", "README", "text/plain"],
    ["Markdown", "# Titre\n\n- point", "guide.md", "text/markdown"],
    ["Markdown (.markdown)", "# Titre", "guide.markdown", "text/markdown"],
    ["CSV", "id;nom\n1;Ada\n", "clients.csv", "text/csv"],
    ["JSON that parses", '{"a": [1, 2, 3]}', "data.json", "application/json"],
    ["PDF", pdf, "report.pdf", "application/pdf"],
    ["PDF whatever its name", pdf, "report.txt", "application/pdf"],
  ])("detects %s", async (_label, content, filename, mime) => {
    const response = await upload(acme, "/v1/files", content, filename);
    expect(response.status).toBe(201);
    expect(response.body.data.mime_type).toBe(mime);
  });

  it.each([
    ["a PNG named .txt", png, "image.txt"],
    ["a ZIP named .csv", zip, "table.csv"],
    ["bytes that are not UTF-8", Buffer.from([0x41, 0xff, 0xfe, 0x42]), "notes.txt"],
    ["text with NUL bytes", Buffer.from("abc\u0000def"), "notes.txt"],
    ["JSON that does not parse", "{nope", "data.json"],
    ["text named .pdf", "not a pdf", "fake.pdf"],
  ])("refuses %s: 415 unsupported_file_type, nothing stored", async (_label, content, filename) => {
    const before = await fileCount(acme);
    const response = await upload(acme, "/v1/files", content, filename);
    expect(response.status).toBe(415);
    expect(response.body.error.code).toBe("unsupported_file_type");
    expect(await fileCount(acme)).toBe(before);
    expect(tempFiles()).toEqual([]);
  });

  it("strips bidi controls from the stored name, so invoice\u202Efdp.exe cannot display as invoiceexe.pdf", async () => {
    const response = await upload(acme, "/v1/files", pdf, "invoice\u202Efdp\u2066\u200f.exe");
    expect(response.status).toBe(201);
    expect(response.body.data.filename).toBe("invoicefdp.exe");
    const row = await (await testDb()).file.findUniqueOrThrow({ where: { id: response.body.data.id } });
    expect(row.filename).toBe("invoicefdp.exe");
  });

  it("refuses bodies that are not one file part", async () => {
    const before = await fileCount(acme);
    const json = await api("/v1/files", { json: { file: "x" }, as: { key: acme.key } });
    expect(json.status).toBe(415);
    expect(json.body.error.code).toBe("unsupported_media_type");
    const otherField = await api("/v1/files", { body: uploadForm("x", "a.txt", "document"), as: { key: acme.key } });
    expect(otherField.status).toBe(400);
    expect(otherField.body.error).toMatchObject({ code: "unknown_parameter", errors: [{ field: "document" }] });
    const textField = new FormData();
    textField.append("file", "just a string");
    const notAFile = await api("/v1/files", { body: textField, as: { key: acme.key } });
    expect(notAFile.status).toBe(400);
    expect(notAFile.body.error.errors[0]).toMatchObject({ field: "file", code: "not_a_file" });
    const two = uploadForm("a", "a.txt");
    two.append("file", new Blob(["b"]), "b.txt");
    const twoFiles = await api("/v1/files", { body: two, as: { key: acme.key } });
    expect(twoFiles.status).toBe(400);
    expect(twoFiles.body.error.errors[0]).toMatchObject({ field: "file", code: "too_many_files" });
    const empty = await upload(acme, "/v1/files", "", "empty.txt");
    expect(empty.status).toBe(400);
    expect(empty.body.error.errors[0]).toMatchObject({ field: "file", code: "empty" });
    expect(await fileCount(acme)).toBe(before);
    expect(tempFiles()).toEqual([]);
  });

  it("streams a 20 MB upload to disk on the pro plan", async () => {
    const content = Buffer.alloc(20 * 1024 * 1024, "abcdefghij\n");
    const response = await upload(acme, "/v1/files", content, "big.txt");
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ bytes: content.length, sha256: sha256(content) });
    await api(`/v1/files/${response.body.data.id}`, { method: "DELETE", as: { key: acme.key } });
  });
});

describe("plan limits", () => {
  it("accepts a file of exactly maxFileBytes and refuses one byte more with 413 file_too_large, leaving nothing", async () => {
    const tenant = await createTenant("pro");
    await arrangePlan(tenant, { maxFileBytes: 1000 });
    expect((await upload(tenant, "/v1/files", "x".repeat(1000), "edge.txt")).status).toBe(201);
    const over = await upload(tenant, "/v1/files", "x".repeat(1001), "over.txt");
    expect(over.status).toBe(413);
    expect(over.body.error.code).toBe("file_too_large");
    // Far over: refused from Content-Length before the body is read.
    const huge = await upload(tenant, "/v1/files", Buffer.alloc(2_000_000, "x"), "huge.txt");
    expect(huge.status).toBe(413);
    expect(await fileCount(tenant)).toBe(1);
    expect(tempFiles()).toEqual([]);
  });

  it("counts files and bytes against the plan: 400 storage_quota_exceeded at the edge", async () => {
    const tenant = await createTenant("pro");
    await arrangePlan(tenant, { maxFiles: 3, storageBytes: 1000 });
    expect((await upload(tenant, "/v1/files", "a".repeat(600), "a.txt")).status).toBe(201);
    const over = await upload(tenant, "/v1/files", "b".repeat(401), "b.txt");
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({
      code: "storage_quota_exceeded",
      reason: { quota: "storage_bytes", limit: 1000, used: 600 },
    });
    expect((await upload(tenant, "/v1/files", "b".repeat(399), "b.txt")).status).toBe(201);
    expect((await upload(tenant, "/v1/files", "c", "c.txt")).status).toBe(201); // 1000 bytes, 3 files: both at the limit
    const fourth = await upload(tenant, "/v1/files", "d", "d.txt");
    expect(fourth.status).toBe(400);
    expect(fourth.body.error).toMatchObject({ code: "storage_quota_exceeded", reason: { quota: "files", limit: 3 } });
    expect(await fileCount(tenant)).toBe(3);
    expect(tempFiles()).toEqual([]);
  });
});

describe("expiry", () => {
  it("hides expired files from every read, frees their quota and purges their bytes", async () => {
    const tenant = await createTenant("pro");
    await arrangePlan(tenant, { maxFiles: 1 });
    const file = (await upload(tenant, "/v1/files", "old", "old.txt")).body.data;
    const onDisk = await storedPath(file.id);
    await (await testDb()).file.update({ where: { id: file.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    for (const path of [`/v1/files/${file.id}`, `/v1/files/${file.id}/content`]) {
      expect((await api(path, { as: { key: tenant.key } })).status).toBe(404);
    }
    expect((await api(`/v1/files/${file.id}`, { method: "DELETE", as: { key: tenant.key } })).status).toBe(404);
    expect((await api("/v1/files", { as: { key: tenant.key } })).body.data).toEqual([]);
    expect((await upload(tenant, "/v1/files", "new", "new.txt")).status).toBe(201);
    expect(await (await testDb()).file.findUnique({ where: { id: file.id } })).toBeNull();
    expect(existsSync(onDisk)).toBe(false);
  });
});

describe("DELETE /v1/files/{file}", () => {
  it("removes the row and the bytes", async () => {
    const file = (await upload(acme, "/v1/files", "bye", "bye.txt")).body.data;
    const onDisk = await storedPath(file.id);
    const response = await api(`/v1/files/${file.id}`, { method: "DELETE", as: { key: acme.key } });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ id: file.id, deleted: true });
    expect(existsSync(onDisk)).toBe(false);
    expect(await (await testDb()).file.findUnique({ where: { id: file.id } })).toBeNull();
    expect((await api(`/v1/files/${file.id}`, { method: "DELETE", as: { key: acme.key } })).status).toBe(404);
  });
});

describe("an interrupted upload", () => {
  it("leaves no file on disk and no row", async () => {
    const before = await fileCount(acme);
    const boundary = "----guichet-test-boundary";
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.txt"\r\nContent-Type: text/plain\r\n\r\n`;
    const declared = Buffer.byteLength(head) + 5_000_000 + `\r\n--${boundary}--\r\n`.length;
    const request = http.request(`${baseUrl}/v1/files`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${acme.key}`,
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "content-length": declared,
      },
    });
    request.on("error", () => undefined);
    request.write(head);
    request.write(Buffer.alloc(1_000_000, "x"));
    // Wait until the server is writing the temp file, then cut the connection mid-body.
    await until(async () => tempFiles().length > 0, "the upload to reach the disk");
    request.destroy();
    await until(async () => tempFiles().length === 0, "the temp file to be removed");
    expect(await fileCount(acme)).toBe(before);
    // The server is still fine.
    expect((await upload(acme, "/v1/files", "after", "after.txt")).status).toBe(201);
  });
});

describe("GET /v1/files", () => {
  it("lists newest first with a cursor", async () => {
    const tenant = await createTenant("pro");
    const ids = [];
    for (const name of ["1.txt", "2.txt", "3.txt"])
      ids.push((await upload(tenant, "/v1/files", name, name)).body.data.id);
    const first = await api("/v1/files?limit=2", { as: { key: tenant.key } });
    expect(first.body.data.map((f: { id: string }) => f.id)).toEqual([ids[2], ids[1]]);
    const second = await api(`/v1/files?limit=2&cursor=${first.body.next_cursor}`, { as: { key: tenant.key } });
    expect(second.body.data.map((f: { id: string }) => f.id)).toEqual([ids[0]]);
    expect(second.body.next_cursor).toBeNull();
  });
});
