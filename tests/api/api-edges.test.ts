import http from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { baseUrl, createTenant, testDb, type Tenant } from "./helpers";

// Requests Next cannot route by itself: methods no route exports (TRACE cannot even
// become a web Request, so fetch refuses to send it), multipart bodies with a wrong
// method, and paths that are not valid percent-encoded UTF-8. Raw node:http, so
// the method and the path go on the wire exactly as written.

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function raw(
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: Buffer } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${baseUrl}${path}`, { method, headers: options.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(options.body);
  });
}

function multipart(content: string, filename: string) {
  const boundary = `----guichet${Date.now()}`;
  const body = Buffer.from(
    `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${filename}"\r\ncontent-type: text/plain\r\n\r\n${content}\r\n--${boundary}--\r\n`,
  );
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

function expectEnvelope(response: RawResponse, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
  const body = JSON.parse(response.text);
  expect(body.error.code).toBe(code);
  expect(body.error.request_id).toMatch(/^req_[0-9a-z]{26}$/);
  expect(response.headers["x-request-id"]).toBe(body.error.request_id);
  return body;
}

const allowOf = (response: RawResponse) => String(response.headers.allow).split(", ").sort();

let acme: Tenant;
let auth: Record<string, string>;

beforeAll(async () => {
  acme = await createTenant("pro");
  auth = { authorization: `Bearer ${acme.key}` };
});

describe("methods no route exports", () => {
  it.each([
    ["TRACE", "/v1/agents", ["GET", "POST"]],
    ["TRACE", "/v1/agents/agt_01jzzzzzzzzzzzzzzzzzzzzzzz", ["DELETE", "GET", "PATCH"]],
    ["TRACE", "/v1/tools", ["GET"]],
    ["TRACE", "/api/health", ["GET"]],
    ["TRACE", "/v1/openapi.json", ["GET"]],
    ["QUERY", "/v1/agents", ["GET", "POST"]],
    ["QUERY", "/api/health", ["GET"]],
    ["PROPFIND", "/v1/runs", ["GET", "POST"]],
    ["POST", "/api/health", ["GET"]],
    ["TRACE", "/mcp/agents/agt_01jzzzzzzzzzzzzzzzzzzzzzzz", ["DELETE", "GET", "POST"]],
    ["PUT", "/mcp/agents/agt_01jzzzzzzzzzzzzzzzzzzzzzzz", ["DELETE", "GET", "POST"]],
  ])("%s %s answers the 405 envelope with Allow", async (method, path, allowed) => {
    const response = await raw(method, path, { headers: auth });
    const body = expectEnvelope(response, 405, "method_not_allowed");
    expect(allowOf(response)).toEqual(allowed);
    expect(body.error.message).toContain(method);
  });

  it("TRACE on an unknown /v1 path is the 404 envelope, like any other method there", async () => {
    expectEnvelope(await raw("TRACE", "/v1/no-such-thing", { headers: auth }), 404, "not_found");
    expectEnvelope(await raw("GET", "/v1/no-such-thing", { headers: auth }), 404, "not_found");
  });

  it("the listed methods still reach their handlers, and the server keeps serving after refusals", async () => {
    await raw("TRACE", "/v1/agents", { headers: auth });
    const list = await raw("GET", "/v1/agents", { headers: auth });
    expect(list.status).toBe(200);
    expect(JSON.parse(list.text)).toHaveProperty("data");
    expect((await raw("GET", "/api/health")).status).toBe(200);
  });
});

describe("multipart requests with a wrong method", () => {
  it.each(["PUT", "PATCH", "QUERY", "TRACE"])(
    "%s /v1/files with a file gets the 405 envelope and stores nothing",
    async (method) => {
      const db = await testDb();
      const before = await db.file.count({ where: { organizationId: acme.organizationId } });
      const { body, contentType } = multipart("bonjour", "notes.txt");
      const response = await raw(method, "/v1/files", { headers: { ...auth, "content-type": contentType }, body });
      expectEnvelope(response, 405, "method_not_allowed");
      expect(allowOf(response)).toEqual(["GET", "POST"]);
      expect(await db.file.count({ where: { organizationId: acme.organizationId } })).toBe(before);
    },
  );

  it.each(["PUT", "PATCH"])(
    "%s /v1/files from the standard fetch client reads the 405 envelope, not a closed connection",
    async (method) => {
      const db = await testDb();
      const before = await db.file.count({ where: { organizationId: acme.organizationId } });
      const form = new FormData();
      form.set("file", new Blob([Buffer.alloc(2 * 1024 * 1024, "a")], { type: "text/plain" }), "grand.txt");
      const response = await fetch(`${baseUrl}/v1/files`, { method, headers: auth, body: form });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")?.split(", ").sort()).toEqual(["GET", "POST"]);
      expect((await response.json()).error.code).toBe("method_not_allowed");
      expect(await db.file.count({ where: { organizationId: acme.organizationId } })).toBe(before);
    },
  );

  it("the same multipart body with POST is stored", async () => {
    const { body, contentType } = multipart("bonjour", "notes.txt");
    const response = await raw("POST", "/v1/files", { headers: { ...auth, "content-type": contentType }, body });
    expect(response.status).toBe(201);
    const id = JSON.parse(response.text).data.id;
    expect(await (await testDb()).file.findUnique({ where: { id } })).toMatchObject({
      organizationId: acme.organizationId,
      filename: "notes.txt",
    });
  });
});

describe("paths that are not valid percent-encoded UTF-8", () => {
  it("a console page answers Next's 404 page", async () => {
    const { cookie } = await acme.as("approver");
    const response = await raw("GET", "/approbations/%ff", { headers: { cookie: cookie! } });
    expect(response.status).toBe(404);
    expect(response.headers["content-type"]).toMatch(/^text\/html/);
    expect(response.text).toContain("404");
  });

  it("a /v1 path answers the 404 envelope", async () => {
    expectEnvelope(await raw("GET", "/v1/agents/%ff", { headers: auth }), 404, "not_found");
    expectEnvelope(await raw("DELETE", "/v1/api_keys/%c3%28", { headers: auth }), 404, "not_found");
  });

  it("a valid encoded path still renders the approval screen", async () => {
    const { cookie } = await acme.as("approver");
    const response = await raw("GET", "/approbations/prop_%C3%A9", { headers: { cookie: cookie! } });
    expect(response.status).toBe(200);
    expect(response.text).toContain("<title>Décision d’approbation · Guichet</title>");
  });
});
