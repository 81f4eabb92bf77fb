import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { errorStatus } from "@/lib/http/errors";
import type { Endpoint } from "@/lib/http/endpoint";
import { endpoints } from "./endpoints";

const ErrorEnvelope = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    errors: z.array(z.object({ field: z.string(), code: z.string(), message: z.string() })).optional(),
    reason: z.record(z.string(), z.unknown()).optional(),
    request_id: z.string(),
  }),
});

const commonErrors = ["unauthenticated", "insufficient_scope", "rate_limited", "internal_error"] as const;

function errorResponses(endpoint: Endpoint) {
  const codes = [...commonErrors, ...(endpoint.errors ?? [])];
  if (endpoint.body || endpoint.params || endpoint.query) codes.push("invalid_parameter", "unknown_parameter");
  if (endpoint.body && !endpoint.multipart) codes.push("invalid_json", "json_too_deep", "unsupported_media_type", "payload_too_large");
  const byStatus = new Map<number, string[]>();
  for (const code of codes) byStatus.set(errorStatus[code], [...(byStatus.get(errorStatus[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [status, { description: [...new Set(list)].join(", "), content: { "application/json": { schema: ErrorEnvelope } } }]),
  );
}

/** The OpenAPI 3.1 document, built from the same zod schemas that validate requests. */
export function buildOpenApiDocument() {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", "apiKey", { type: "http", scheme: "bearer", description: "An API key created in the console (Clés API)." });
  for (const endpoint of endpoints) {
    const body = endpoint.multipart
      ? { content: { "multipart/form-data": { schema: z.object({ file: z.string().meta({ format: "binary" }) }) } } }
      : endpoint.body
        ? { content: { "application/json": { schema: endpoint.body } } }
        : undefined;
    registry.registerPath({
      method: endpoint.method.toLowerCase() as "get",
      path: endpoint.path,
      summary: endpoint.summary,
      tags: [endpoint.tag],
      security: endpoint.auth === "session" ? [] : [{ apiKey: [] }],
      description: [
        endpoint.auth === "session" ? "Signed-in console session only (API keys are refused)." : endpoint.auth === "apiKey" ? "API key only." : "API key or console session.",
        endpoint.scopes?.length ? `Scopes: ${endpoint.scopes.join(" or ")}.` : "",
        endpoint.roles?.length ? `Roles: ${endpoint.roles.join(", ")}.` : "",
      ].filter(Boolean).join(" "),
      request: {
        params: endpoint.params as z.ZodObject | undefined,
        query: endpoint.query as z.ZodObject | undefined,
        body,
      },
      responses: {
        [endpoint.status ?? 200]: {
          description: "Success",
          content: endpoint.response ? { "application/json": { schema: endpoint.response } } : undefined,
        },
        ...errorResponses(endpoint),
      },
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: { title: "Guichet API", version: "1.0.0", description: "Govern what AI agents may do: agents, tools, runs, proposals and approvals." },
    servers: [{ url: "/" }],
  });
}
