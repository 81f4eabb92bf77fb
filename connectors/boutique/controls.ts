import type { IncomingMessage, ServerResponse } from "node:http";
import { readBody, sendJson } from "../acme-crm/http";
import type { Order } from "./store";

// Test controls of Boutique, for Guichet's tests only: off unless the server
// is started with `controls: true` (BOUTIQUE_ENABLE_CONTROL=1). Not authenticated.

export interface Counters {
  /** tools/call per tool, then per account e-mail (only calls with a valid token). */
  calls: Record<string, Record<string, number>>;
  /** Writes actually applied per idempotency key (replays and refusals not counted). */
  commits: Record<string, number>;
  /** Successful refresh_token grants. */
  refreshes: { total: number; by_account: Record<string, number> };
  /** /mcp requests refused with 401/403. */
  refused: number;
}

export const newCounters = (): Counters => ({
  calls: {},
  commits: {},
  refreshes: { total: 0, by_account: {} },
  refused: 0,
});

export interface BoutiqueControls {
  /** Drops every grant, code and refresh token of the account: its next refresh answers invalid_grant, its access tokens stop working. */
  revokeAccount(email: string): { revoked_grants: number };
  /** Lifetime of the access tokens issued from now on. */
  setAccessTokenTtl(seconds: number): void;
  accessTokenTtl(): number;
  counters(): Counters;
  resetCounters(): void;
  /** Live (not yet rotated) refresh tokens of the account. */
  refreshTokensOf(email: string): number;
  orders(): Array<Order & { account_id: string }>;
}

async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  try {
    const text = await readBody(req, 64 * 1024);
    const value = text ? JSON.parse(text) : {};
    return value && typeof value === "object" && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * GET  /__control/counters                    → Counters
 * POST /__control/counters/reset              → {}
 * POST /__control/revoke {email}              → {revoked_grants}
 * GET  /__control/access-token-ttl            → {seconds}
 * POST /__control/access-token-ttl {seconds}  → {seconds}
 * GET  /__control/refresh-tokens?email=…      → {email, live}
 * GET  /__control/orders                      → {orders}
 */
export async function handleControl(
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  controls: BoutiqueControls,
): Promise<void> {
  const route = `${req.method} ${pathname}`;
  if (route === "GET /__control/counters") return sendJson(res, 200, controls.counters());
  if (route === "POST /__control/counters/reset") {
    controls.resetCounters();
    return sendJson(res, 200, {});
  }
  if (route === "GET /__control/access-token-ttl") return sendJson(res, 200, { seconds: controls.accessTokenTtl() });
  if (route === "GET /__control/orders") return sendJson(res, 200, { orders: controls.orders() });
  if (route === "GET /__control/refresh-tokens") {
    const email = new URL(req.url ?? "/", "http://localhost").searchParams.get("email") ?? "";
    return sendJson(res, 200, { email, live: controls.refreshTokensOf(email) });
  }
  if (route === "POST /__control/revoke") {
    const body = await jsonBody(req);
    if (!body || typeof body.email !== "string") return sendJson(res, 400, { error: "expected {email}" });
    try {
      return sendJson(res, 200, controls.revokeAccount(body.email));
    } catch (e) {
      return sendJson(res, 404, { error: (e as Error).message });
    }
  }
  if (route === "POST /__control/access-token-ttl") {
    const body = await jsonBody(req);
    const seconds = body?.seconds;
    if (typeof seconds !== "number" || !Number.isInteger(seconds) || seconds < 1 || seconds > 86_400)
      return sendJson(res, 400, { error: "expected {seconds: 1..86400}" });
    controls.setAccessTokenTtl(seconds);
    return sendJson(res, 200, { seconds });
  }
  return sendJson(res, 404, { error: "not found" });
}
