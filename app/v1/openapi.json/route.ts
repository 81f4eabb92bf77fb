import { buildOpenApiDocument } from "@/lib/openapi/document";
import { newId } from "@/lib/ids";

const document = JSON.stringify(buildOpenApiDocument());

// GET /v1/openapi.json — the OpenAPI 3.1 description, public like any API reference
export function GET(): Response {
  return new Response(document, {
    headers: { "content-type": "application/json; charset=utf-8", "x-request-id": newId("req") },
  });
}
