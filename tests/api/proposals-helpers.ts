import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { callTool, connectCrm, createAgent, createRun, type ConnectedCrm } from "./dispatch-fixtures";
import { beforeAll, beforeEach } from "vitest";
import { api, createTenant, crmBaseUrl, crmState, crmUrl, type Caller, type Tenant } from "./helpers";
import type { Role } from "@/lib/auth/scopes";

// Arrangements of the proposals, operations and policies suites: a tenant with
// CRM Acme connected and reviewed as an administrator would, runs that carry
// its write tools, and the steps an agent and an approver take — all through
// the real API, asserting on the CRM's own stored state.

/** C-1842's addresses in the CRM seed: ADDR-1 is where it ships (version 17), ADDR-2 and ADDR-3 are saved. */
export const ADDR_1 = { line1: "8 rue des Lilas", city: "Paris", postal_code: "75011", country: "FR" };
export const ADDR_2 = { line1: "24 quai Saint-Antoine", city: "Lyon", postal_code: "69002", country: "FR" };
export const ADDR_3 = { line1: "12 rue Sainte-Catherine", city: "Bordeaux", postal_code: "33000", country: "FR" };

export const CRM_WRITES = [
  "preview_address_change",
  "commit_address_change",
  "send_email",
  "refund_payment",
  "suspend_invoice_delivery",
  "suspend_all_invoice_delivery",
  "cancel_job",
] as const;
export const CRM_READS = ["get_customer", "get_operation_status"] as const;

export interface CrmSetup {
  tenant: Tenant;
  crm: ConnectedCrm;
  agentId: string;
  /** A read_write run of the agent, created with the tenant's API key (or a member's session). */
  run(as?: Role): Promise<string>;
  /** Who opened a run of `run()` — the only caller its tool calls may come from; the tenant's key otherwise. */
  openerOf?(runId: string): Caller;
}

export async function setupCrm(tenant: Tenant): Promise<CrmSetup> {
  const crm = await connectCrm(tenant);
  const agent = await createAgent(tenant, { tools: [...CRM_READS, ...CRM_WRITES].map(crm.key) });
  const openers = new Map<string, Caller>();
  return {
    tenant,
    crm,
    agentId: agent.id,
    async run(as) {
      if (!as) return (await createRun(tenant, { agent: agent.id, capabilities: "read_write" })).run.id as string;
      const caller = await tenant.as(as);
      const response = await api("/v1/runs", { json: { agent: agent.id, capabilities: "read_write" }, as: caller });
      if (response.status !== 201)
        throw new Error(`run as ${as}: HTTP ${response.status} ${JSON.stringify(response.body)}`);
      openers.set(response.body.data.id, caller);
      return response.body.data.id as string;
    },
    openerOf: (runId) => openers.get(runId) ?? { key: tenant.key },
  };
}

/**
 * A suite's arrangement: one pro tenant with CRM Acme connected (made once for
 * the file) and CRM Acme re-seeded before each test. The object is filled in by
 * the suite's first hook, so tests read it as they would a `let`.
 */
export function crmSuite(): CrmSetup {
  const setup = {} as CrmSetup;
  beforeAll(async () => void Object.assign(setup, await setupCrm(await createTenant("pro"))));
  beforeEach(resetCrm);
  return setup;
}

/** Wipes and re-seeds the CRM (C-1842 back at version 17) and switches its faults off. */
export async function resetCrm(): Promise<void> {
  const response = await fetch(`${crmBaseUrl}/__control/reset`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ data: true }),
  });
  if (!response.ok) throw new Error(`reset: HTTP ${response.status}`);
}

/** "Someone else edited it": bumps the customer's version in the CRM. */
export async function touchCustomer(id: string): Promise<number> {
  const response = await fetch(`${crmBaseUrl}/__control/customers/${id}/touch`, { method: "POST" });
  return ((await response.json()) as { version: number }).version;
}

export async function crmCustomer(id: string) {
  return ((await crmState()).customers as Array<Record<string, any>>).find((c) => c.customer_id === id)!;
}

/** The CRM's own record of writes made under keys of this run. */
export async function crmOperationsOf(runId: string): Promise<Array<Record<string, any>>> {
  return ((await crmState()).operations as Array<Record<string, any>>).filter((op) =>
    String(op.idempotency_key).startsWith(`${runId}:`),
  );
}

export async function previewAddress(
  setup: CrmSetup,
  runId: string,
  addressId: string,
  customerId = "C-1842",
  as: Caller = setup.openerOf?.(runId) ?? { key: setup.tenant.key },
) {
  return callTool(
    setup.tenant,
    runId,
    setup.crm.key("preview_address_change"),
    { customer_id: customerId, destination: { kind: "saved", address_id: addressId } },
    undefined,
    as,
  );
}

export async function commit(
  setup: CrmSetup,
  runId: string,
  tool: string,
  proposalId: string,
  as: Caller = setup.openerOf?.(runId) ?? { key: setup.tenant.key },
) {
  return callTool(setup.tenant, runId, setup.crm.key(tool), { proposal_id: proposalId }, undefined, as);
}

export async function getProposal(tenant: Tenant, id: string) {
  const response = await api(`/v1/proposals/${id}`, { as: { key: tenant.key } });
  if (response.status !== 200) throw new Error(`proposal: HTTP ${response.status}`);
  return response.body.data as Record<string, any>;
}

/** Approves with the hash the proposal shows (or the one given), as a demo role or a signed-in caller. */
export async function approve(tenant: Tenant, id: string, who: Role | Caller, hash?: string) {
  const sha = hash ?? (await getProposal(tenant, id)).arguments_sha256;
  return api(`/v1/proposals/${id}/approve`, {
    json: { arguments_sha256: sha },
    as: typeof who === "string" ? await tenant.as(who) : who,
  });
}

/** An approval that must be recorded: the proposal after it, or a thrown error naming the refusal. */
export async function approveOk(tenant: Tenant, id: string, who: Role | Caller): Promise<Record<string, any>> {
  const response = await approve(tenant, id, who);
  if (response.status !== 200) throw new Error(`approve: HTTP ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data;
}

/** The idempotency key Guichet sends with this commit (the product's rule): for tests where another client takes it first. */
/**
 * The idempotency key a commit must send, spelled out here rather than computed by the product's own
 * function: the run, the proposal and the tool's versioned key, so a change of what the key binds fails.
 */
export function commitKey(setup: CrmSetup, runId: string, proposalId: string, tool = "commit_address_change"): string {
  return `${runId}:${proposalId}:${setup.crm.key(tool)}@1`;
}

export async function refuse(tenant: Tenant, id: string, role: Role, reason: string) {
  return api(`/v1/proposals/${id}/refuse`, { json: { reason }, as: await tenant.as(role) });
}

/** Preview then approval by the demo approver: an approved proposal of the address change. */
export async function approvedAddressChange(
  setup: CrmSetup,
  runId: string,
  addressId: string,
): Promise<Record<string, any>> {
  const preview = await previewAddress(setup, runId, addressId);
  if (!preview.ok || !preview.evidence.proposal) throw new Error(`preview: ${JSON.stringify(preview)}`);
  const approved = await approveOk(setup.tenant, preview.evidence.proposal.id, "approver");
  if (approved.status !== "approved") throw new Error(`approve: ${JSON.stringify(approved)}`);
  return approved;
}

/** A call made straight to CRM Acme, as another client of the service would. */
export async function callCrmDirectly(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const client = new Client({ name: "guichet-tests", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(crmUrl)));
  try {
    return (await client.request(
      { method: "tools/call", params: { name, arguments: args } },
      CallToolResultSchema,
    )) as CallToolResult;
  } finally {
    await client.close();
  }
}
