import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { errorStatus, type ErrorCode } from "@/lib/http/errors";
import type { Endpoint } from "@/lib/http/endpoint";
import { nameComponents } from "./components";
import { endpoints, operationIds } from "./endpoints";
import { ErrorEnvelope } from "./error-envelope";
import { refusals } from "./refusals";
import { tags } from "./tags";

// service_unavailable: the database could not be reached for a moment (lib/db/unavailable.ts).
const commonErrors: ErrorCode[] = [
  "unauthenticated",
  "insufficient_scope",
  "rate_limited",
  "internal_error",
  "service_unavailable",
];

/** Every code an endpoint can answer besides success, from its declaration. */
function errorCodes(endpoint: Endpoint): ErrorCode[] {
  const codes = [...commonErrors, ...(endpoint.errors ?? [])];
  if (endpoint.body || endpoint.params || endpoint.query || endpoint.multipart) codes.push("invalid_parameter", "unknown_parameter");
  // A path parameter left empty (`/v1/agents//tools`) is an unknown path: 404 like an unknown id.
  if (endpoint.params) codes.push("not_found");
  // API keys are refused on session-only endpoints, roles are checked for people,
  // and a cookie-authenticated write from another site is refused.
  if (endpoint.auth === "session" || endpoint.roles?.length || (endpoint.auth === "both" && endpoint.method !== "GET")) codes.push("forbidden");
  return [...new Set(codes)];
}

function errorResponses(endpoint: Endpoint, operationId: string) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes(endpoint)) byStatus.set(errorStatus[code], [...(byStatus.get(errorStatus[code]) ?? []), code]);
  const documented = refusals[operationId] ?? {};
  return Object.fromEntries(
    [...byStatus].sort(([a], [b]) => a - b).map(([status, codes]) => {
      const lines = codes.map((code) => (documented[code] ? `- \`${code}\`: ${documented[code]}` : `- \`${code}\``));
      return [status, { description: `Error codes:\n${lines.join("\n")}`, content: { "application/json": { schema: ErrorEnvelope } } }];
    }),
  );
}

function security(endpoint: Endpoint): Record<string, string[]>[] {
  if (endpoint.auth === "session") return [{ cookieAuth: [] }];
  if (endpoint.auth === "apiKey") return [{ apiKey: [] }];
  return [{ apiKey: [] }, { cookieAuth: [] }];
}

function requestBody(endpoint: Endpoint) {
  if (endpoint.multipart) {
    const schema = z.object({ file: z.string().meta({ format: "binary", description: "The file; no other field is accepted." }) });
    return { required: true, content: { "multipart/form-data": { schema } } };
  }
  if (!endpoint.body) return undefined;
  // A body whose every field is optional may be left out (an empty body reads as {}).
  return { required: !endpoint.body.safeParse({}).success, content: { "application/json": { schema: endpoint.body } } };
}

const CURSOR = "Opaque: pass the `next_cursor` of the previous page unchanged. Its content and format may change at any time.";
const NEXT_CURSOR = "Opaque cursor of the next page (send it as `cursor`); null on the last page.";

/** Cursors are opaque: say so wherever one is read or returned. */
function documentCursors(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(documentCursors);
  if (!node || typeof node !== "object") return;
  const record = node as Record<string, unknown>;
  if (record.in === "query" && record.name === "cursor") record.description = CURSOR;
  const properties = record.properties as Record<string, Record<string, unknown>> | undefined;
  if (properties?.next_cursor) properties.next_cursor.description = NEXT_CURSOR;
  Object.values(record).forEach(documentCursors);
}

/** JSON, Server-Sent Events, or both (one object per event: its SSE `id`, `event` name and `data`). */
function successContent(endpoint: Endpoint) {
  const content: Record<string, { schema: z.ZodType }> = {};
  if (endpoint.response) content["application/json"] = { schema: endpoint.response };
  if (endpoint.download) {
    const { contentType, description, binary } = endpoint.download;
    const schema = z.string().meta(binary ? { format: "binary", description } : { description });
    for (const type of typeof contentType === "string" ? [contentType] : contentType) content[type] = { schema };
  }
  if (endpoint.eventStream) {
    const events = Object.entries(endpoint.eventStream.events).map(([name, data]) =>
      z.object({ id: z.number().int(), event: z.literal(name), data }).meta({ title: name }),
    );
    // Rewritten as text by documentEventStreams, the events kept beside it.
    content["text/event-stream"] = { schema: z.union(events) };
  }
  return Object.keys(content).length ? content : undefined;
}

const EVENT_FRAMES = "Server-Sent Events: each event is sent as `id: <seq>`, `event: <name>`, `data: <JSON>` lines, then a blank line.";

/**
 * The body of a `text/event-stream` answer is text, and says so (`type:
 * string`): a generated client then types that answer apart from the JSON one
 * and can narrow between them. What each event's `data` holds stays in the
 * document, under `x-events` (an SSE client parses the frames itself).
 */
function documentEventStreams(paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, Record<string, unknown>> }> }>>): void {
  for (const operation of Object.values(paths).flatMap((item) => Object.values(item)))
    for (const response of Object.values(operation.responses ?? {})) {
      const stream = response.content?.["text/event-stream"];
      if (!stream) continue;
      stream["x-events"] = stream.schema;
      stream.schema = { type: "string", description: EVENT_FRAMES };
    }
}

type SchemaNode = Record<string, unknown>;

/**
 * A field the server fills in when it is left out may be left out: its
 * default goes into the description, not into `default`, which generators
 * (openapi-typescript) read as "always present" and so make the field
 * required in the request type. Only what request bodies reach is rewritten.
 */
function documentRequestDefaults(document: { paths?: unknown; components?: { schemas?: unknown } }): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, SchemaNode>;
  const seen = new Set<unknown>();
  const visit = (node: unknown): void => {
    if (!node || typeof node !== "object" || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) return node.forEach(visit);
    const record = node as SchemaNode;
    if (typeof record.$ref === "string") visit(schemas[record.$ref.replace("#/components/schemas/", "")]);
    const properties = record.properties as Record<string, SchemaNode> | undefined;
    for (const property of Object.values(properties ?? {})) {
      if (!("default" in property)) continue;
      const said = `Default when left out: \`${JSON.stringify(property.default)}\`.`;
      property.description = property.description ? `${property.description} ${said}` : said;
      delete property.default;
    }
    Object.values(record).forEach(visit);
  };
  const operations = Object.values((document.paths ?? {}) as Record<string, Record<string, { requestBody?: unknown }>>).flatMap((item) => Object.values(item));
  for (const operation of operations) visit(operation.requestBody);
}

/** The OpenAPI 3.1 document, built from the same zod schemas that validate requests. */
export function buildOpenApiDocument() {
  nameComponents();
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", "apiKey", { type: "http", scheme: "bearer", description: "An API key created in the console (Clés API)." });
  registry.registerComponent("securitySchemes", "cookieAuth", {
    type: "apiKey",
    in: "cookie",
    name: "next-auth.session-token",
    description:
      "The session of a person signed in to the console (`__Host-next-auth.session-token` when the console is served over https). Writes must come from the console's own origin.",
  });
  for (const endpoint of endpoints) {
    const operationId = operationIds.get(endpoint)!;
    registry.registerPath({
      method: endpoint.method.toLowerCase() as "get",
      path: endpoint.path,
      operationId,
      summary: endpoint.summary,
      tags: [endpoint.tag],
      security: security(endpoint),
      description: [
        endpoint.auth === "session" ? "Signed-in console session only (API keys are refused with `forbidden`)." : endpoint.auth === "apiKey" ? "API key only." : "API key or console session.",
        endpoint.scopes?.length ? `Scopes: ${endpoint.scopes.join(" or ")}.` : "",
        endpoint.roles?.length ? `Roles: ${endpoint.roles.join(", ")}.` : "",
      ].filter(Boolean).join(" "),
      request: {
        params: endpoint.params as z.ZodObject | undefined,
        query: endpoint.query as z.ZodObject | undefined,
        body: requestBody(endpoint),
      },
      responses: {
        [endpoint.status ?? 200]: {
          description: endpoint.eventStream ? `Success. ${endpoint.eventStream.description}` : "Success",
          content: successContent(endpoint),
        },
        ...errorResponses(endpoint, operationId),
      },
    });
  }
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Guichet API",
      version: "1.0.0",
      description: "Govern what AI agents may do: agents, tools, runs, proposals and approvals.",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
      contact: { name: "Guichet API support" },
    },
    servers: [{ url: "/" }],
    tags: tags.map((tag) => ({ ...tag })),
  });
  documentEventStreams(document.paths as Parameters<typeof documentEventStreams>[0]);
  documentRequestDefaults(document);
  documentCursors(document.paths);
  documentCursors(document.components);
  return document;
}
