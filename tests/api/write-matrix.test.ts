import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { callTool, createRun } from "./dispatch-fixtures";
import { api, createTenant, crmState, signIn, testDb, type Caller } from "./helpers";
import {
  approveOk,
  callCrmDirectly,
  commit,
  commitKey,
  crmOperationsOf,
  getProposal,
  resetCrm,
  setupCrm,
  type CrmSetup,
} from "./proposals-helpers";
import { recipes } from "./write-recipes";

// The write matrix: every write tool of the catalog — read from GET /v1/tools,
// not listed here — goes through the same eight refusals of the commit, by the
// real dispatcher against CRM Acme. A write tool that appears in the catalog
// without a recipe (./write-recipes.ts) fails the suite: no write ships without these proofs.

let setup: CrmSetup;
let writeTools: string[];
/** A member of its own whose role a case may take away after they approved. */
let extra: { id: string; caller: Caller };

beforeAll(async () => {
  const tenant = await createTenant("pro");
  setup = await setupCrm(tenant);
  // Two approvals for every write, so that a quorum can be missed by one.
  const current = await api("/v1/policies", { as: { key: tenant.key } });
  const rule = {
    id: "matrix-two-people",
    match: { effect: "write" },
    decision: "require_approval",
    approvals_required: 2,
    approver_roles: ["owner", "admin", "approver"],
    ttl_seconds: 3600,
  };
  const put = await api("/v1/policies", {
    method: "PUT",
    json: { rules: [rule, ...current.body.data.rules], base_version: current.body.data.version },
    as: await tenant.as("admin"),
  });
  if (put.status !== 200) throw new Error(`policy: HTTP ${put.status} ${JSON.stringify(put.body)}`);
  const db = await testDb();
  const { newId } = await import("@/lib/ids");
  const { hashPassword } = await import("@/lib/auth/passwords");
  const email = `extra-approver@${tenant.slug}.test`;
  const member = await db.member.create({
    data: {
      id: newId("mem"),
      organizationId: tenant.organizationId,
      email,
      name: "Extra approver",
      role: "approver",
      passwordHash: await hashPassword("guichet-demo"),
    },
  });
  extra = { id: member.id, caller: await signIn(email) };
  const catalog = await api("/v1/tools", { as: { key: tenant.key } });
  writeTools = (catalog.body.data as { key: string; writes_data: boolean; server: { id: number } | null }[])
    .filter((entry) => entry.writes_data && entry.server?.id === setup.crm.serverId)
    .map((entry) => entry.key.slice(`mcp_${setup.crm.serverId}_`.length));
});
beforeEach(resetCrm);

/** A proposal of the tool in a fresh run, approved by two entitled people. */
async function approved(tool: string) {
  const run = await setup.run();
  const id = await recipes[tool].propose(setup, run);
  await approveOk(setup.tenant, id, await setup.tenant.as("approver"));
  expect((await approveOk(setup.tenant, id, await setup.tenant.as("admin"))).status).toBe("approved");
  return { run, id };
}

/** Asserts the refusal and that nothing of this run reached CRM Acme. */
async function refusedAndNothingSent(
  tool: string,
  run: string,
  envelope: { ok: boolean; error?: { code: string } },
  code: string,
  before: unknown,
) {
  expect({ tool, code: envelope.error?.code }).toEqual({ tool, code });
  expect(await crmOperationsOf(run)).toHaveLength(0);
  expect(recipes[tool].effects(await crmState())).toEqual(before);
}

describe("the write matrix", () => {
  it("covers every write tool of the catalog: a new one without a recipe fails here", () => {
    expect(writeTools.length).toBeGreaterThan(0);
    expect(writeTools.filter((tool) => !recipes[tool])).toEqual([]);
  });

  const cases: [string, (tool: string) => Promise<void>][] = [
    [
      "stale target",
      async (tool) => {
        const { stale } = recipes[tool];
        const { run, id } = await approved(tool);
        if ("reported" in stale) {
          await stale.reported.change();
          const envelope = await commit(setup, run, tool, id);
          expect({ tool, ok: envelope.ok, error: envelope.error }).toEqual({ tool, ok: true, error: undefined });
          await stale.reported.check(envelope.result, await crmState());
          expect((await crmOperationsOf(run)).map((op) => op.status)).toEqual(["succeeded"]);
          expect((await getProposal(setup.tenant, id)).status).toBe("consumed");
          return;
        }
        const { code, mentions } = await stale.refused();
        const before = recipes[tool].effects(await crmState());
        const envelope = await commit(setup, run, tool, id);
        expect({ tool, code: envelope.error?.code }).toEqual({ tool, code });
        if (mentions) {
          expect(envelope.error.message).toContain(mentions);
          // The service's code is a field of the envelope too, not only words in the message.
          expect(envelope.error.upstream_code).toBe(mentions);
        }
        expect(recipes[tool].effects(await crmState())).toEqual(before);
        // The service recorded its refusal under Guichet's key; nothing was written, the proposal stays unconsumed.
        expect((await crmOperationsOf(run)).map((op) => op.status)).toEqual(["failed"]);
        expect((await getProposal(setup.tenant, id)).status).toBe("approved");
      },
    ],
    [
      "expired approval",
      async (tool) => {
        const { run, id } = await approved(tool);
        await (await testDb()).proposal.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
        const before = recipes[tool].effects(await crmState());
        await refusedAndNothingSent(tool, run, await commit(setup, run, tool, id), "PROPOSAL_EXPIRED", before);
      },
    ],
    [
      "approver without rights",
      async (tool) => {
        const db = await testDb();
        await db.member.update({ where: { id: extra.id }, data: { role: "approver" } });
        const run = await setup.run();
        const id = await recipes[tool].propose(setup, run);
        await approveOk(setup.tenant, id, extra.caller);
        await approveOk(setup.tenant, id, await setup.tenant.as("admin"));
        // Rights are asked again at commit: the extra approver lost the role since.
        await db.member.update({ where: { id: extra.id }, data: { role: "viewer" } });
        const before = recipes[tool].effects(await crmState());
        await refusedAndNothingSent(tool, run, await commit(setup, run, tool, id), "APPROVER_NOT_AUTHORIZED", before);
      },
    ],
    [
      "quorum not met",
      async (tool) => {
        const run = await setup.run();
        const id = await recipes[tool].propose(setup, run);
        expect((await approveOk(setup.tenant, id, await setup.tenant.as("approver"))).status).toBe("pending");
        const before = recipes[tool].effects(await crmState());
        await refusedAndNothingSent(tool, run, await commit(setup, run, tool, id), "PROPOSAL_NOT_APPROVED", before);
      },
    ],
    [
      "duplicate key",
      async (tool) => {
        const { run, id } = await approved(tool);
        const first = await commit(setup, run, tool, id);
        expect({ tool, ok: first.ok }).toEqual({ tool, ok: true });
        const after = recipes[tool].effects(await crmState());
        const second = await commit(setup, run, tool, id);
        expect(second).toMatchObject({
          ok: true,
          result: first.result,
          evidence: { operation: first.evidence.operation, replayed: true },
        });
        expect(await crmOperationsOf(run)).toHaveLength(1);
        expect(recipes[tool].effects(await crmState())).toEqual(after);
      },
    ],
    [
      "key reused with other arguments",
      async (tool) => {
        const { run, id } = await approved(tool);
        const key = commitKey(setup, run, id, tool);
        const direct = await callCrmDirectly(tool, { ...recipes[tool].otherArguments, idempotency_key: key });
        expect({ tool, isError: direct.isError ?? false }).toEqual({ tool, isError: false });
        const after = recipes[tool].effects(await crmState());
        const envelope = await commit(setup, run, tool, id);
        expect({ tool, code: envelope.error?.code }).toEqual({ tool, code: "IDEMPOTENCY_KEY_REUSED" });
        expect(await crmOperationsOf(run)).toHaveLength(1);
        expect(recipes[tool].effects(await crmState())).toEqual(after);
        expect((await getProposal(setup.tenant, id)).status).toBe("approved");
      },
    ],
    [
      "extra arguments at commit",
      async (tool) => {
        const { run, id } = await approved(tool);
        const before = recipes[tool].effects(await crmState());
        for (const extraArgs of [{ note: "x" }, { idempotency_key: "agent-picked-key-01" }]) {
          const envelope = await callTool(setup.tenant, run, setup.crm.key(tool), { proposal_id: id, ...extraArgs });
          await refusedAndNothingSent(tool, run, envelope, "INVALID_ARGUMENTS", before);
        }
        expect((await getProposal(setup.tenant, id)).status).toBe("approved");
      },
    ],
    [
      "commit in a read run",
      async (tool) => {
        const { id } = await approved(tool);
        const readRun = (await createRun(setup.tenant, { agent: setup.agentId, capabilities: "read" })).run
          .id as string;
        const before = recipes[tool].effects(await crmState());
        await refusedAndNothingSent(tool, readRun, await commit(setup, readRun, tool, id), "TOOL_NOT_IN_RUN", before);
        expect((await getProposal(setup.tenant, id)).status).toBe("approved");
      },
    ],
  ];

  it.each(cases)(
    "%s — for every write tool of the catalog, through the dispatcher: never a second or an unapproved write",
    async (_name, check) => {
      for (const tool of writeTools) {
        await resetCrm();
        await check(tool);
      }
    },
  );
});
