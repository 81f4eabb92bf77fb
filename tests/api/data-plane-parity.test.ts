import { afterAll, beforeAll, expect, it } from "vitest";
import { api, baseUrl, createTenant, startSuiteInstance, type Tenant } from "./helpers";
import { createAgent } from "./agents-helpers";
import { startApp } from "./server";

// The suite's server (server/main.mjs) answers bearer calls on its data plane;
// a plain `next start` on the same database answers them through Next. Every
// declared operation is called on both with the same key: the status, the
// headers that matter and the shape of the body must be the same, so a route,
// a header or a refusal cannot exist on one plane and not the other.

let next: Awaited<ReturnType<typeof startApp>>;
let tenant: Tenant;
const known: Record<string, string> = {};

beforeAll(async () => {
  tenant = await createTenant("pro");
  next = await startSuiteInstance({ GUICHET_SERVER: "next" });
  const agent = await createAgent(tenant, { name: "Parité" });
  known.agent = agent.id;
  const run = await api("/v1/runs", { json: { agent: agent.id }, as: { key: tenant.key } });
  expect(run.status).toBe(201);
  known.run = run.body.data.id;
});

afterAll(async () => next?.stop());

const HEADERS = [
  "content-type",
  "allow",
  "retry-after",
  "cache-control",
  "www-authenticate",
  "content-security-policy",
  "x-frame-options",
  "referrer-policy",
  "x-content-type-options",
];

/** The keys of a JSON value, recursively for objects and the first element of arrays: its shape, not its values. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length ? [shape(value[0])] : [];
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, shape((value as Record<string, unknown>)[key])]),
    );
  return value === null ? null : typeof value;
}

async function call(origin: string, method: string, path: string, withBody: boolean) {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${tenant.key}`,
      ...(withBody ? { "content-type": "application/json" } : {}),
    },
    body: withBody ? "{}" : undefined,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // an event stream or a download: compared as text length class below
  }
  const headers = Object.fromEntries(HEADERS.map((name) => [name, response.headers.get(name)]));
  return {
    answer: {
      status: response.status,
      headers,
      requestId: /^req_/.test(response.headers.get("x-request-id") ?? ""),
      code: (body as { error?: { code?: unknown } })?.error?.code ?? null,
      shape: typeof body === "string" ? "text" : shape(body),
    },
    /** Sent with its exact length rather than chunked. */
    sized: response.headers.get("content-length") === String(Buffer.byteLength(text)),
  };
}

it("answers every declared operation the same on the data plane and through Next", async () => {
  const { endpoints } = await import("@/lib/openapi/endpoints");
  expect(endpoints.length).toBeGreaterThan(50);
  const differences: string[] = [];
  for (const endpoint of endpoints) {
    // Reads use real ids; writes and deletes use ids that exist nowhere, so the first call changes nothing the second sees.
    const read = endpoint.method === "GET";
    const path = endpoint.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
      read && known[name] ? known[name] : `${name.slice(0, 3)}_parity_missing`,
    );
    const withBody = endpoint.method !== "GET" && endpoint.method !== "DELETE";
    const { answer: viaPlane, sized } = await call(baseUrl, endpoint.method, path, withBody);
    const { answer: viaNext } = await call(next.baseUrl, endpoint.method, path, withBody);
    // A stream's first bytes are not compared (events are timed); its status and headers are.
    if (viaPlane.headers["content-type"]?.startsWith("text/event-stream")) viaPlane.shape = viaNext.shape;
    // The data plane writes a JSON answer whole, with its length (lib/http/answer.ts).
    if (viaPlane.headers["content-type"]?.startsWith("application/json") && !sized)
      differences.push(`${endpoint.method} ${path}: a JSON answer without its Content-Length on the data plane`);
    try {
      expect(viaPlane).toEqual(viaNext);
    } catch {
      differences.push(`${endpoint.method} ${path}: ${JSON.stringify(viaPlane)} vs ${JSON.stringify(viaNext)}`);
    }
  }
  expect(differences).toEqual([]);
});

it("serves bearer calls on the data plane and the same paths to cookie callers through Next", async () => {
  // An unknown /v1 path, a method no route exports and a trailing slash answer alike on both.
  for (const [method, path] of [
    ["GET", "/v1/nothing_here"],
    ["PUT", "/v1/agents"],
    ["GET", "/v1/agents/"],
    ["GET", "/v1/agents/%ff"],
  ] as const) {
    const viaPlane = await call(baseUrl, method, path, false);
    const viaNext = await call(next.baseUrl, method, path, false);
    expect(viaPlane.answer, `${method} ${path}`).toEqual(viaNext.answer);
  }
  const member = await tenant.as("developer");
  const viaCookie = await api("/v1/agents", { as: member });
  const viaKey = await api("/v1/agents", { as: { key: tenant.key } });
  expect(viaCookie.status).toBe(200);
  expect(viaCookie.body.data.map((a: { id: string }) => a.id)).toEqual(
    viaKey.body.data.map((a: { id: string }) => a.id),
  );
});
