/* eslint-disable @typescript-eslint/no-explicit-any -- loose results on purpose: the tests assert their shape */
// Shared helpers of the CRM Acme tests (not a test file itself).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { CallToolResultSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { startAcmeCrm, type AcmeCrmOptions, type AcmeCrmServer } from "./server";

export interface TestCrm {
  crm: AcmeCrmServer;
  dbPath: string;
  close(): Promise<void>;
}

export async function startTestCrm(opts: Partial<AcmeCrmOptions> = {}): Promise<TestCrm> {
  // A fresh temporary database unless the test brings its own (then it cleans it up).
  const dir = opts.dbPath ? null : fs.mkdtempSync(path.join(os.tmpdir(), "acme-crm-test-"));
  const dbPath = opts.dbPath ?? path.join(dir!, "crm.sqlite");
  const crm = await startAcmeCrm({ port: 0, enableControl: true, ...opts, dbPath });
  return {
    crm,
    dbPath,
    async close() {
      await crm.close();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: "acme-crm-tests", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : undefined,
  });
  await client.connect(transport);
  return client;
}

/**
 * tools/call through the real client, without the SDK's client-side output
 * check (SDK 1.32 also checks error results against the success schema, see
 * README), so business errors come back as results.
 */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options?: RequestOptions,
): Promise<CallToolResult> {
  return (await client.request(
    { method: "tools/call", params: { name, arguments: args } },
    CallToolResultSchema,
    options,
  )) as CallToolResult;
}

/** Structured content of a successful call (fails the test on an error result). */
export async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const r = await call(client, name, args);
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.structuredContent)}`);
  return r.structuredContent;
}

/** The typed error of an error result: `{"error": {...}}` in its one text block, and no structuredContent. */
export function errorOf(result: CallToolResult): any {
  if (!result.isError) throw new Error(`expected an error result, got ${JSON.stringify(result.structuredContent)}`);
  if (result.structuredContent !== undefined) throw new Error("an error result must not carry structuredContent");
  const [block] = result.content;
  if (result.content.length !== 1 || block.type !== "text")
    throw new Error(`expected one text block, got ${JSON.stringify(result.content)}`);
  return (JSON.parse(block.text) as { error: unknown }).error;
}

/** The error body of a failed call (fails the test on a success). */
export async function fails(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  return errorOf(await call(client, name, args));
}

export async function control(baseUrl: string, method: "GET" | "POST", p: string, body?: unknown): Promise<any> {
  const res = await fetch(`${baseUrl}${p}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${p} → HTTP ${res.status}: ${await res.text()}`);
  return res.json();
}

export const state = (baseUrl: string) => control(baseUrl, "GET", "/__control/state");
export const setFaults = (baseUrl: string, faults: Record<string, unknown>) =>
  control(baseUrl, "POST", "/__control/faults", faults);
export const resetAll = (baseUrl: string) => control(baseUrl, "POST", "/__control/reset", { data: true });

/** Validates a result against the outputSchema the server published (JSON Schema 2020-12, strict). */
export function outputValidator(tools: Tool[]) {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  const byName = new Map(tools.map((t) => [t.name, ajv.compile(t.outputSchema as object)]));
  return (name: string, value: unknown): string | null => {
    const fn = byName.get(name);
    if (!fn) return `no output schema for ${name}`;
    return fn(value) ? null : ajv.errorsText(fn.errors);
  };
}

let counter = 0;
export const key = (label = "k") => `test:${label}:${process.pid}:${Date.now()}:${++counter}`;

export interface CrmFixture {
  t: TestCrm;
  client: Client;
  checkOutput: ReturnType<typeof outputValidator>;
}

/**
 * One CRM and one connected client per test file, its data re-seeded before each
 * test unless `resetEachTest` is false. Fields are set once beforeAll ran.
 */
export function setUpTestCrm({ resetEachTest = true } = {}): CrmFixture {
  const fixture = {} as CrmFixture;
  beforeAll(async () => {
    fixture.t = await startTestCrm();
    fixture.client = await connect(fixture.t.crm.url);
    fixture.checkOutput = outputValidator((await fixture.client.listTools()).tools);
  });
  afterAll(async () => {
    await fixture.client?.close();
    await fixture.t?.close();
  });
  if (resetEachTest) beforeEach(() => resetAll(fixture.t.crm.baseUrl));
  return fixture;
}
