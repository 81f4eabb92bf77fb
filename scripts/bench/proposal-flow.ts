import "server-only";
import { connectBenchCrm } from "./crm";
import { latency, type LatencyFigures } from "./stats";
import { performance } from "node:perf_hooks";
import { db } from "@/lib/db";
import { dispatchToolCall, type ToolEnvelope } from "@/lib/proposals/dispatch";
import { closeMcpClients } from "@/lib/executors/mcp";
import { newId } from "@/lib/ids";
import { driverOf } from "@/lib/runs/driver";
import { createRun } from "@/lib/runs/service";
import { approveProposal } from "@/lib/proposals/decisions";

// The write path's cost, in process, against a real CRM Acme: N times
// preview → approve → commit of an address change (each step timed), then one
// approved proposal committed by C concurrent calls — the count of effects in
// the service must be 1. For `npm run bench`:
//
//   const figures = await measureProposalFlow({ crmUrl, iterations: 50, concurrency: 50 });
//
// Needs a migrated database with the reference data in DATABASE_URL and a CRM
// Acme whose C-1842 it may change. Creates its own organization and removes
// everything it made afterwards.

export interface ProposalFlowFigures {
  iterations: number;
  preview: LatencyFigures;
  approve: LatencyFigures;
  commit: LatencyFigures;
  total: LatencyFigures;
  contention: {
    concurrent_commits: number;
    succeeded: number;
    replayed: number;
    operations: number;
    effects: number;
    wall_ms: number;
  };
}

function expectOk(step: string, envelope: ToolEnvelope): Extract<ToolEnvelope, { ok: true }> {
  if (!envelope.ok) throw new Error(`${step}: ${envelope.error.code} ${envelope.error.message}`);
  return envelope;
}

const RUN_BUDGET = 90; // calls per run, under the default per-run limit of 120 a minute

export async function measureProposalFlow(options: {
  crmUrl: string;
  iterations?: number;
  concurrency?: number;
}): Promise<ProposalFlowFigures> {
  const iterations = options.iterations ?? 50;
  const concurrency = options.concurrency ?? 50;
  const organizationId = newId("org");
  await db.organization.create({
    data: { id: organizationId, slug: `bench-${organizationId.slice(-10)}`, name: "Bench proposals", planId: "pro" },
  });
  try {
    const approver = await db.member.create({
      data: {
        id: newId("mem"),
        organizationId,
        email: `approver-${organizationId}@bench.test`,
        name: "Bench approver",
        role: "approver",
        passwordHash: "-",
      },
    });
    const key = await connectBenchCrm(organizationId, options.crmUrl);
    const agent = await db.agent.create({
      data: {
        id: newId("agt"),
        organizationId,
        name: "Bench",
        temperatureCenti: 30,
        tools: [key("get_customer"), key("preview_address_change"), key("commit_address_change")],
        clientTools: [],
      },
    });
    const principal = {
      kind: "apiKey" as const,
      organizationId,
      apiKeyId: "key_bench",
      scopes: ["runs:write" as const],
    };
    const newRun = async () =>
      (await createRun(principal, { agent: agent.id, capabilities: "read_write", debug: false })).run.id;
    const call = (runId: string, tool: string, args: unknown) =>
      dispatchToolCall({ organizationId, runId, driver: driverOf(principal), tool: key(tool), arguments: args });
    const decider = { organizationId, memberId: approver.id, role: "approver" as const };

    let runId = await newRun();
    let calls = 0;
    const flow = async (address: string) => {
      if (calls + 3 > RUN_BUDGET) [runId, calls] = [await newRun(), 0];
      calls += 2;
      const t0 = performance.now();
      const preview = expectOk(
        "preview",
        await call(runId, "preview_address_change", {
          customer_id: "C-1842",
          destination: { kind: "saved", address_id: address },
        }),
      );
      const proposal = preview.evidence.proposal as { id: string; arguments_sha256: string };
      const t1 = performance.now();
      await approveProposal(decider, proposal.id, proposal.arguments_sha256);
      const t2 = performance.now();
      expectOk("commit", await call(runId, "commit_address_change", { proposal_id: proposal.id }));
      return { preview: t1 - t0, approve: t2 - t1, commit: performance.now() - t2, total: performance.now() - t0 };
    };

    // Each flow moves C-1842 to the other saved address: a preview of where it already ships is NO_CHANGE.
    let moves = 0;
    const nextAddress = () => (moves++ % 2 ? "ADDR-2" : "ADDR-3");
    for (let i = 0; i < 3; i++) await flow(nextAddress()); // warm-up: schemas, pooled connection, statements
    const samples = { preview: [] as number[], approve: [] as number[], commit: [] as number[], total: [] as number[] };
    for (let i = 0; i < iterations; i++) {
      const timing = await flow(nextAddress());
      for (const step of ["preview", "approve", "commit", "total"] as const) samples[step].push(timing[step]);
    }

    // Contention: one approved proposal, C commits at once, counted in the service's own version.
    const contentionRun = await newRun();
    const version = async () =>
      (
        expectOk("get_customer", await call(contentionRun, "get_customer", { customer_id: "C-1842" })).result as {
          version: number;
        }
      ).version;
    const before = await version();
    const current = (
      expectOk("get_customer", await call(contentionRun, "get_customer", { customer_id: "C-1842" })).result as {
        shipping_address: { city: string };
      }
    ).shipping_address.city;
    const preview = expectOk(
      "preview",
      await call(contentionRun, "preview_address_change", {
        customer_id: "C-1842",
        destination: { kind: "saved", address_id: current === "Lyon" ? "ADDR-3" : "ADDR-2" },
      }),
    );
    const proposal = preview.evidence.proposal as { id: string; arguments_sha256: string };
    await approveProposal(decider, proposal.id, proposal.arguments_sha256);
    const started = performance.now();
    const envelopes = await Promise.all(
      Array.from({ length: concurrency }, () =>
        call(contentionRun, "commit_address_change", { proposal_id: proposal.id }),
      ),
    );
    const wall = performance.now() - started;
    const succeeded = envelopes.filter((e): e is Extract<ToolEnvelope, { ok: true }> => e.ok);
    return {
      iterations,
      preview: latency(samples.preview),
      approve: latency(samples.approve),
      commit: latency(samples.commit),
      total: latency(samples.total),
      contention: {
        concurrent_commits: concurrency,
        succeeded: succeeded.length,
        replayed: succeeded.filter((e) => e.evidence.replayed === true).length,
        operations: await db.operation.count({ where: { proposalId: proposal.id } }),
        effects: (await version()) - before,
        wall_ms: Math.round(wall),
      },
    };
  } finally {
    await closeMcpClients();
    const orgScoped = { where: { organizationId } };
    await db.decision.deleteMany(orgScoped);
    await db.proposal.deleteMany(orgScoped);
    await db.operation.deleteMany(orgScoped);
    await db.policyVersion.deleteMany(orgScoped);
    await db.telemetryCounter.deleteMany(orgScoped);
    await db.toolContract.deleteMany(orgScoped);
    await db.writeLock.deleteMany({ where: { target: { startsWith: `${organizationId}:` } } });
    await db.rateLimitWindow.deleteMany({ where: { key: { contains: organizationId } } });
    await db.organization.delete({ where: { id: organizationId } });
  }
}
