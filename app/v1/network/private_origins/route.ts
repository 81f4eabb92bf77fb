import { handle } from "@/lib/http/handler";
import { listPrivateOriginsEndpoint } from "@/lib/network/api";
import { privateOrigins } from "@/lib/network/private-origins";

// GET /v1/network/private_origins — the private origins granted to the caller's organization (operator's grants, read-only)
export const GET = handle(listPrivateOriginsEndpoint, async ({ principal }) => ({
  data: await privateOrigins(principal.organizationId),
}));
