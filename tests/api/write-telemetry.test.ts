import { afterEach, describe, expect, it } from "vitest";
import { callTool } from "./dispatch-fixtures";
import { api, crmFaults } from "./helpers";
import {
  approve,
  approvedAddressChange,
  commit,
  crmCustomer,
  crmSuite,
  previewAddress,
  refuse,
  touchCustomer,
} from "./proposals-helpers";

// Counters that mean what they say: approval decisions, conflicts, unknown
// outcomes and output errors, read back through GET /v1/telemetry. A conflict
// or an unknown outcome is one event of the world — counted once, when its
// operation settles — however many calls then hear about it.

const setup = crmSuite();
afterEach(() => crmFaults({ cut_after_commit: false, status_down: false, malformed_success: false }));

async function telemetry() {
  const response = await api("/v1/telemetry?hours=2", { as: { key: setup.tenant.key } });
  expect(response.status).toBe(200);
  return response.body.data;
}

const decisions = (data: { approval_decisions: { decision: string; count: number }[] }, kind: string) =>
  data.approval_decisions.find((d) => d.decision === kind)?.count ?? 0;
const errorsOf = (data: { errors_by_code: { code: string; count: number }[] }, code: string) =>
  data.errors_by_code.find((e) => e.code === code)?.count ?? 0;

describe("telemetry of the write path", () => {
  it("counts each approval decision once, by kind", async () => {
    const before = await telemetry();
    const run = await setup.run();
    await approvedAddressChange(setup, run, "ADDR-2");
    const other = await previewAddress(setup, run, "ADDR-3");
    expect((await refuse(setup.tenant, other.evidence.proposal.id, "approver", "Pas cette adresse.")).status).toBe(200);
    // A second verdict by the same person is refused: no count.
    expect((await approve(setup.tenant, other.evidence.proposal.id, "approver")).status).toBe(409);
    const after = await telemetry();
    expect(decisions(after, "approve") - decisions(before, "approve")).toBe(1);
    expect(decisions(after, "refuse") - decisions(before, "refuse")).toBe(1);
  });

  it("counts a version conflict once, however often its recorded answer is replayed", async () => {
    const before = await telemetry();
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    await touchCustomer("C-1842");
    for (let i = 0; i < 3; i++)
      expect((await commit(setup, run, "commit_address_change", proposal.id)).error.code).toBe("VERSION_CONFLICT");
    const after = await telemetry();
    expect(after.totals.conflicts - before.totals.conflicts).toBe(1);
    expect(errorsOf(after, "VERSION_CONFLICT") - errorsOf(before, "VERSION_CONFLICT")).toBe(3);
  });

  it("counts an unknown outcome once: the calls its suspended run then refuses are calls, not new unknown outcomes", async () => {
    const before = await telemetry();
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    await crmFaults({ cut_after_commit: true, status_down: true });
    expect((await commit(setup, run, "commit_address_change", proposal.id)).error.code).toBe("OUTCOME_UNKNOWN");
    await crmFaults({ cut_after_commit: false, status_down: false });
    expect((await api(`/v1/runs/${run}`, { as: { key: setup.tenant.key } })).body.data.status).toBe("suspended");
    expect((await commit(setup, run, "commit_address_change", proposal.id)).error.code).toBe("OUTCOME_UNKNOWN");
    expect(
      (await callTool(setup.tenant, run, setup.crm.key("get_customer"), { customer_id: "C-1842" })).error.code,
    ).toBe("OUTCOME_UNKNOWN");
    const after = await telemetry();
    expect(after.totals.unknown_outcomes - before.totals.unknown_outcomes).toBe(1);
    expect(errorsOf(after, "OUTCOME_UNKNOWN") - errorsOf(before, "OUTCOME_UNKNOWN")).toBe(3);
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18 });
  });

  it("counts output errors of a read and of a commit whose success body breaks its schema", async () => {
    const before = await telemetry();
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    await crmFaults({ malformed_success: true });
    expect(
      (await callTool(setup.tenant, run, setup.crm.key("get_customer"), { customer_id: "C-1842" })).error.code,
    ).toBe("INVALID_OUTPUT");
    // The commit's body is malformed and so is the status answer: unknown, never a success.
    expect((await commit(setup, run, "commit_address_change", proposal.id)).error.code).toBe("OUTCOME_UNKNOWN");
    const after = await telemetry();
    expect(after.totals.output_errors - before.totals.output_errors).toBe(2);
    expect(after.totals.unknown_outcomes - before.totals.unknown_outcomes).toBe(1);
    const commitErrors = (data: { output_errors: { tool: string; count: number }[] }) =>
      data.output_errors.find((e) => e.tool === setup.crm.key("commit_address_change"))?.count ?? 0;
    expect(commitErrors(after) - commitErrors(before)).toBe(1);
  });
});
