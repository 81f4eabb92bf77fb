import * as apiKeys from "@/lib/api-keys/api";
import * as models from "@/lib/models/api";
import * as catalog from "@/lib/catalog/api";
import * as mcp from "@/lib/mcp/api";
import * as policies from "@/lib/policies/api";
import * as proposals from "@/lib/proposals/api";
import * as operations from "@/lib/operations/api";
import * as agents from "@/lib/agents/api";
import * as files from "@/lib/files/api";
import * as runs from "@/lib/runs/api";
import * as dispatch from "@/lib/dispatch/api";
import * as telemetry from "@/lib/telemetry/api";
import * as contracts from "@/lib/contracts/api";
import * as traces from "@/lib/traces/api";
import * as network from "@/lib/network/api";
import * as sessions from "@/lib/auth/api";
import * as organizations from "@/lib/tenancy/api";
import * as webhooks from "@/lib/webhooks/api";
import * as preferences from "@/lib/preferences/api";
import * as audit from "@/lib/audit/api";
import * as members from "@/lib/members/api";
import * as oauth from "@/lib/oauth/api";
import * as widgets from "@/lib/widgets/api";
import * as connections from "@/lib/connections/api";
import type { Endpoint } from "@/lib/http/endpoint";

// Every /v1 endpoint declaration, gathered from each domain's api.ts.
// A new domain adds one line here; tests check every app/v1 route is listed.
const modules: Record<string, unknown>[] = [apiKeys, models, catalog, mcp, agents, files, policies, proposals, operations, runs, dispatch, telemetry, contracts, traces, network, sessions, organizations, webhooks, preferences, audit, members, oauth, widgets, connections];

function isEndpoint(value: unknown): value is Endpoint {
  return typeof value === "object" && value !== null && "method" in value && "path" in value && "auth" in value;
}

export const endpoints: Endpoint[] = [];
/** Each endpoint's operationId: its export name without `Endpoint` (`createAgentEndpoint` → `createAgent`). */
export const operationIds = new Map<Endpoint, string>();
// Export names that are not a verb followed by a noun.
const renamed: Record<string, string> = { toolCall: "callTool", telemetry: "getTelemetry", putPolicy: "replacePolicy", putShadowPolicy: "replaceShadowPolicy" };
for (const domain of modules) {
  for (const [name, value] of Object.entries(domain)) {
    if (!isEndpoint(value)) continue;
    const base = name.replace(/Endpoint$/, "");
    endpoints.push(value);
    operationIds.set(value, renamed[base] ?? base);
  }
}
