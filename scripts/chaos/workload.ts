import { createScript } from "@/connectors/model-sim/control";
import type { ScriptBody } from "@/connectors/model-sim/script";
import { call, callUntilAnswered, signIn, type Body, type Caller } from "./http";
import type { Random } from "./random";

// The mix the harness drives while faults are injected: managed runs (reads,
// writes that wait for approval, client-tool pauses, writes a policy lets
// through, runs whose model answers 500s or hangs) and client-driven commits,
// with a scripted approver deciding (approve, refuse, or let it expire) as each
// run's plan says. What each client was told is kept for the invariants.

export type ScenarioKind =
  "read" | "write_approval" | "client_tool" | "direct_write" | "model_500" | "model_hang" | "client_commit";
export type Plan = "approve" | "refuse" | "expire";

export interface Ledger {
  started: Record<ScenarioKind, number>;
  /** Decisions the approver was told were recorded (HTTP 200). */
  decisions: { proposalId: string; decision: "approve" | "refuse" }[];
  /** Client-driven commits a client was told succeeded. */
  commits: { proposalId: string }[];
  /** What the clients of client-driven commits were answered, by envelope code. */
  commitAnswers: Record<string, number>;
  /** Requests whose answer never came or was an error (the balancer answered 5xx, the connection died), by what came. */
  lostAnswers: Record<string, number>;
}

export interface Tenant {
  key: string;
  agentId: string;
  tools: Record<"get_customer" | "list_orders" | "preview" | "commit" | "suspend", string>;
  approver: Caller;
}

const CUSTOMERS: Record<string, string[]> = {
  "C-1842": ["INV-1842-001", "INV-1842-002", "INV-1842-003"],
  "C-2001": ["INV-2001-001", "INV-2001-002", "INV-2001-003"],
  "C-2002": ["INV-2002-001", "INV-2002-002", "INV-2002-003"],
  "C-3003": ["INV-3003-001", "INV-3003-002", "INV-3003-003"],
};
const CITIES = ["Lyon", "Nantes", "Lille", "Rennes", "Dijon", "Metz", "Brest", "Tours"];

export const CLIENT_TOOL = {
  name: "lookup_ticket",
  description: "Lit un ticket du support dans le système du client.",
  parameters: {
    type: "object",
    properties: { ticket: { type: "string" } },
    required: ["ticket"],
    additionalProperties: false,
  },
};

/** The demo organization made ready for the mix: its policy, an agent with CRM Acme's tools and a client tool. */
export async function prepareTenant(base: string, demoKey: string): Promise<Tenant> {
  const as = { key: demoKey };
  const listed = await callUntilAnswered(base, "/v1/tools?limit=100", { as });
  const keys: string[] = (listed.body.data as { key: string }[]).map((tool) => tool.key);
  const find = (suffix: string) => {
    const key = keys.find((candidate) => candidate.startsWith("mcp_") && candidate.endsWith(`_${suffix}`));
    if (!key) throw new Error(`CRM Acme's ${suffix} is not in the catalog`);
    return key;
  };
  const tools = {
    get_customer: find("get_customer"),
    list_orders: find("list_orders"),
    preview: find("preview_address_change"),
    commit: find("commit_address_change"),
    suspend: find("suspend_invoice_delivery"),
  };
  const admin = await signIn(base, "admin@acme.test");
  const current = await callUntilAnswered(base, "/v1/policies", { as: admin });
  const rules = [
    // An address change waits for an approver for at most a minute: the approver's "expire" plan lets it lapse.
    {
      id: "chaos-address",
      match: { tools: [tools.commit] },
      decision: "require_approval",
      approvals_required: 1,
      approver_roles: ["approver"],
      ttl_seconds: 60,
    },
    // Invoice suspensions go straight through: writes sent with no person in the way, mid-commit kills included.
    { id: "chaos-suspend", match: { tools: [tools.suspend] }, decision: "allow" },
    ...current.body.data.rules,
  ];
  const put = await callUntilAnswered(base, "/v1/policies", {
    method: "PUT",
    json: { rules, base_version: current.body.data.version },
    as: admin,
  });
  if (put.status !== 200) throw new Error(`policy: HTTP ${put.status} ${JSON.stringify(put.body)}`);
  const agent = await callUntilAnswered(base, "/v1/agents", {
    json: {
      name: `Chaos ${Date.now()}`,
      instructions: "Tu lis et modifies les fiches clients du CRM.",
      tools: Object.values(tools),
      client_tools: [CLIENT_TOOL],
    },
    as,
  });
  if (agent.status !== 201) throw new Error(`agent: HTTP ${agent.status} ${JSON.stringify(agent.body)}`);
  return { key: demoKey, agentId: agent.body.data.id, tools, approver: await signIn(base, "approver@acme.test") };
}

export interface WorkloadContext {
  base: string;
  simBaseUrl: string;
  tenant: Tenant;
  random: Random;
  ledger: Ledger;
  /** Each run's plan for its proposal, read by the approver. */
  plans: Map<string, Plan>;
  /** Client commits in flight: proposal id → the instance base URL the commit was sent to. */
  commitsInFlight: Map<string, string>;
  /** The instances' own base URLs (a client commit goes to one of them directly). */
  instanceBases: () => string[];
  /** How long a scenario's client waits for its run before moving on. */
  patienceMs: number;
}

function scriptFor(kind: ScenarioKind, t: Tenant, random: Random): ScriptBody["turns"] {
  const customer = random.pick(Object.keys(CUSTOMERS));
  const read = { tool_calls: [{ name: t.tools.get_customer, arguments: { customer_id: customer } }] };
  switch (kind) {
    case "read":
      return [
        read,
        { tool_calls: [{ name: t.tools.list_orders, arguments: { customer_id: customer, limit: 3 } }] },
        { text: "Fiche lue." },
      ];
    case "write_approval":
      return [
        read,
        { tool_calls: [{ name: t.tools.preview, arguments: previewArguments(customer, random) }] },
        { text: "Le changement d'adresse a suivi son cours." },
      ];
    case "client_tool":
      return [
        { tool_calls: [{ name: CLIENT_TOOL.name, arguments: { ticket: `T-${random.int(1000, 9999)}` } }] },
        { text: "Ticket lu." },
      ];
    case "direct_write":
      return [
        {
          tool_calls: [
            {
              name: t.tools.suspend,
              arguments: { customer_id: customer, invoice_ids: [random.pick(CUSTOMERS[customer])] },
            },
          ],
        },
        { text: "Envoi des factures suspendu." },
      ];
    case "model_500":
      return [read, { error: { status: 500, message: "chaos: provider error" } }];
    case "model_hang":
      return [read, { text: "Trop tard.", delay_ms: 30_000 }];
    default:
      throw new Error(`no script for ${kind}`);
  }
}

function previewArguments(customer: string, random: Random) {
  const city = random.pick(CITIES);
  return {
    customer_id: customer,
    destination: {
      kind: "new",
      line1: `${random.int(1, 200)} rue de la Paix`,
      city,
      postal_code: "69002",
      country: "FR",
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A 503: HAProxy's own (no instance up: nothing was received), or Guichet's `service_unavailable` (its database
 * cannot be reached: retry after a moment). A client honouring Retry-After sends the request again.
 */
const unavailable = (answer: { status: number }) => answer.status === 503;

/** POST /v1/runs, sent again while the balancer has no instance up or the database is away. */
async function createRun(ctx: WorkloadContext, json: Record<string, unknown>) {
  let answer = await call(ctx.base, "/v1/runs", { json, as: { key: ctx.tenant.key } });
  for (let attempt = 0; unavailable(answer) && attempt < 40; attempt += 1) {
    await sleep(500);
    answer = await call(ctx.base, "/v1/runs", { json, as: { key: ctx.tenant.key } });
  }
  return answer;
}

/** One scenario, driven to its end (or until the client's patience runs out). */
export async function runScenario(kind: ScenarioKind, ctx: WorkloadContext, plan: Plan): Promise<void> {
  ctx.ledger.started[kind] += 1;
  if (kind === "client_commit") return clientCommit(ctx, plan);
  const script = await createScript(ctx.simBaseUrl, {
    turns: scriptFor(kind, ctx.tenant, ctx.random),
    replay: "by_conversation",
  });
  const as = { key: ctx.tenant.key };
  const created = await createRun(ctx, {
    agent: ctx.tenant.agentId,
    input: "Occupe-toi de la fiche client.",
    instructions: script.marker,
    capabilities: "read_write",
  });
  if (created.status !== 201) {
    // The instance died under the request: whether the run exists is for the database to say.
    lost(ctx.ledger, created);
    return;
  }
  const runId = created.body.data.id as string;
  ctx.plans.set(runId, plan);
  const deadline = Date.now() + ctx.patienceMs;
  let answered = false;
  while (Date.now() < deadline) {
    const got = await call(ctx.base, `/v1/runs/${runId}`, { as });
    const run = got.status === 200 ? got.body.data : null;
    if (run && ["completed", "failed", "cancelled", "expired"].includes(run.status)) return;
    if (run?.status === "requires_action" && !answered) {
      const outputs = (run.required_action.tool_calls as { id: string }[]).map((c) => ({
        tool_call_id: c.id,
        output: JSON.stringify({ ticket: "ouvert", sujet: "livraison" }),
      }));
      const sent = await call(ctx.base, `/v1/runs/${runId}/tool_outputs`, { json: { tool_outputs: outputs }, as });
      // Answered, or answered already by a first attempt whose answer was lost (run_not_waiting).
      if (sent.status === 200 || sent.status === 409) answered = true;
    }
    await sleep(300);
  }
}

/** A client-driven run: preview, wait for the approver, commit by proposal id, sent again until answered. */
async function clientCommit(ctx: WorkloadContext, plan: Plan): Promise<void> {
  const as = { key: ctx.tenant.key };
  const created = await createRun(ctx, { agent: ctx.tenant.agentId, capabilities: "read_write" });
  if (created.status !== 201) {
    lost(ctx.ledger, created);
    return;
  }
  const runId = created.body.data.id as string;
  ctx.plans.set(runId, plan);
  const customer = ctx.random.pick(Object.keys(CUSTOMERS));
  const preview = await callUntilAnswered(ctx.base, `/v1/runs/${runId}/tool_calls`, {
    json: { tool: ctx.tenant.tools.preview, arguments: previewArguments(customer, ctx.random) },
    as,
  });
  const proposalId = (preview.body?.evidence?.proposal?.id ?? preview.body?.error?.proposal_id) as string | undefined;
  if (!proposalId) {
    if (process.env.CHAOS_DEBUG) console.log("client preview", JSON.stringify(preview.body).slice(0, 400));
    return;
  }
  const deadline = Date.now() + ctx.patienceMs;
  let status = "pending";
  while (Date.now() < deadline && status === "pending") {
    await sleep(300);
    const got = await call(ctx.base, `/v1/proposals/${proposalId}`, { as });
    if (got.status === 200) status = got.body.data.status;
  }
  if (process.env.CHAOS_DEBUG)
    console.log("client commit", runId, proposalId, status, JSON.stringify(preview.body).slice(0, 300));
  if (status !== "approved") return;
  // Sent to one instance directly, so a fault can kill the instance that holds this commit.
  const instance = ctx.random.pick(ctx.instanceBases());
  ctx.commitsInFlight.set(proposalId, instance);
  let answer = await call(instance, `/v1/runs/${runId}/tool_calls`, {
    json: { tool: ctx.tenant.tools.commit, arguments: { proposal_id: proposalId } },
    as,
  });
  ctx.commitsInFlight.delete(proposalId);
  // No answer, or an error the envelope says is retryable (RATE_LIMITED while another write to the record is
  // in flight, maybe a dead sender's whose lock lapses on its own): the client sends the same commit again
  // through the balancer, after retry_after_ms.
  const retryable = () => answer.status === 0 || answer.status >= 500 || answer.body?.error?.retryable === true;
  for (let attempt = 0; retryable() && attempt < 120; attempt += 1) {
    if (answer.status === 0 || answer.status >= 500) lost(ctx.ledger, answer);
    await sleep(Math.min(Number(answer.body?.error?.retry_after_ms ?? 500), 5000));
    answer = await call(ctx.base, `/v1/runs/${runId}/tool_calls`, {
      json: { tool: ctx.tenant.tools.commit, arguments: { proposal_id: proposalId } },
      as,
    });
  }
  const code = answer.body?.ok === true ? "ok" : (answer.body?.error?.code ?? `HTTP ${answer.status}`);
  ctx.ledger.commitAnswers[code] = (ctx.ledger.commitAnswers[code] ?? 0) + 1;
  if (answer.body?.ok === true) ctx.ledger.commits.push({ proposalId });
}

/** The scripted approver: decides each pending proposal as its run's plan says, until `stop` is true. */
export async function approve(ctx: WorkloadContext, stop: () => boolean): Promise<void> {
  const handled = new Set<string>();
  while (!stop()) {
    const listed = await call(ctx.base, "/v1/proposals?status=pending&limit=100", { as: ctx.tenant.approver });
    for (const proposal of listed.status === 200 ? (listed.body.data as Body[]) : []) {
      if (handled.has(proposal.id)) continue;
      const plan = ctx.plans.get(proposal.run) ?? "approve";
      if (plan === "expire") {
        handled.add(proposal.id);
        continue;
      }
      const path = `/v1/proposals/${proposal.id}/${plan === "approve" ? "approve" : "refuse"}`;
      const json =
        plan === "approve"
          ? { arguments_sha256: proposal.arguments_sha256 }
          : { reason: "Refusé par le test de chaos." };
      const answer = await call(ctx.base, path, { json, as: ctx.tenant.approver });
      if (answer.status === 0 || answer.status >= 500) continue; // lost: decided again on the next pass
      handled.add(proposal.id);
      if (answer.status === 200) ctx.ledger.decisions.push({ proposalId: proposal.id, decision: plan });
    }
    await sleep(300);
  }
}

/** Counts an answer that was not the one asked for, by its status and error code. */
function lost(ledger: Ledger, answer: { status: number; body: Body }): void {
  const what = answer.status === 0 ? "no answer" : `${answer.status} ${answer.body?.error?.code ?? ""}`.trim();
  ledger.lostAnswers[what] = (ledger.lostAnswers[what] ?? 0) + 1;
}
