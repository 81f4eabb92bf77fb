import { performance } from "node:perf_hooks";
import { benchSession, sessionHeaders, toolCall } from "./mcp";
import { percentile } from "./stats";

// The same MCP read call (CRM Acme's get_customer) in two sessions of the same
// agent: one opened with the demo API key, one with an OAuth access token of
// the demo developer. Both go through the endpoint's handler in this process,
// alternately, so the difference is what checking the token costs.

export async function measureOAuthAtDoor(baseUrl: string, key: string, iterations: number) {
  const { agentId, sessionId, crmTool } = await benchSession(baseUrl, key);
  const { db } = await import("@/lib/db");
  const { newId } = await import("@/lib/ids");
  const { agentResource, issuerOf, newSecret, secretHash } = await import("@/lib/oauth/config");
  const { handleMcpRequest } = await import("@/lib/mcp-server/endpoint");
  const url = `${baseUrl}/mcp/agents/${agentId}`;
  const agent = await db.agent.findUniqueOrThrow({ where: { id: agentId }, select: { organizationId: true } });
  const member = await db.member.findFirstOrThrow({
    where: { organizationId: agent.organizationId, role: "developer", deactivatedAt: null },
  });
  // A grant as the consent screen makes it, and an access token as the token endpoint stores it (its hash).
  const clientId = newId("ocl");
  await db.oAuthClient.create({
    data: { id: clientId, clientId, kind: "registered", name: "Bench", redirectUris: ["http://127.0.0.1/cb"] },
  });
  const grantId = newId("ogr");
  await db.oAuthGrant.create({
    data: {
      id: grantId,
      organizationId: agent.organizationId,
      memberId: member.id,
      clientId,
      agentId,
      resource: agentResource(issuerOf(new Request(url)), agentId),
      scope: "mcp:read",
      memberRole: member.role,
    },
  });
  const token = newSecret("access");
  await db.oAuthToken.create({
    data: { hash: secretHash(token), grantId, kind: "access", expiresAt: new Date(Date.now() + 3_600_000) },
  });
  const init = await handleMcpRequest(
    new Request(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
      }),
    }),
    agentId,
  );
  const oauthSession = init.headers.get("mcp-session-id");
  if (!oauthSession) throw new Error(`OAuth initialize: HTTP ${init.status} ${await init.text()}`);
  const call = (bearer: string, session: string) => async () => {
    const request = new Request(url, {
      method: "POST",
      headers: sessionHeaders(bearer, session),
      body: toolCall(crmTool, { customer_id: "C-1842" }),
    });
    const answer = (await (await handleMcpRequest(request, agentId)).json()) as { result?: { isError?: boolean } };
    if (!answer.result || answer.result.isError) throw new Error(`get_customer: ${JSON.stringify(answer)}`);
  };
  const viaOAuth = call(token, oauthSession);
  const viaKey = call(key, sessionId);
  const oauth: number[] = [];
  const apiKey: number[] = [];
  try {
    for (let i = 0; i < iterations + 10; i++) {
      let started = performance.now();
      await viaOAuth();
      if (i >= 10) oauth.push(performance.now() - started);
      started = performance.now();
      await viaKey();
      if (i >= 10) apiKey.push(performance.now() - started);
    }
  } finally {
    await db.oAuthClient.delete({ where: { id: clientId } });
  }
  const round = (value: number) => Math.round(value * 1000) / 1000;
  return {
    label: "get_customer (CRM Acme)",
    oauth_p50_ms: round(percentile(oauth, 0.5)),
    api_key_p50_ms: round(percentile(apiKey, 0.5)),
    difference_p50_ms: round(percentile(oauth, 0.5) - percentile(apiKey, 0.5)),
  };
}
