import { clientMetadataDocument, publicOrigin } from "@/lib/connections/oauth";

// Guichet's Client ID Metadata Document as the OAuth client of connectors: its
// URL is the client_id an authorization server that supports such documents fetches.
export function GET(request: Request) {
  return Response.json(clientMetadataDocument(publicOrigin(request)), {
    headers: { "cache-control": "public, max-age=3600" },
  });
}
