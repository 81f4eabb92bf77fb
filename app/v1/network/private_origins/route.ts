import { handle } from "@/lib/http/handler";
import { listPrivateOriginsEndpoint } from "@/lib/network/api";
import { privateOrigins } from "@/lib/network/private-origins";

// GET /v1/network/private_origins — the private origins admin-chosen destinations may use (operator's allowlist, read-only)
export const GET = handle(listPrivateOriginsEndpoint, async () => ({ data: privateOrigins() }));
