import { describe, expect, it } from "vitest";
import { fails, key, ok, setFaults, setUpTestCrm, state } from "./test-helpers";

// The long job: accepted at once, finished later (on a status read once its
// time has passed), cancellable while it runs.

const crm = setUpTestCrm();

const suspendedOf = async (customerId: string) =>
  (await state(crm.t.crm.baseUrl)).invoices.filter((i: any) => i.customer_id === customerId && i.delivery_suspended)
    .length;

async function until<T>(probe: () => Promise<T | null>, bound = 10_000): Promise<T> {
  const deadline = Date.now() + bound;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("the job never reached the expected state");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("suspend_all_invoice_delivery", () => {
  it("answers running at once, does nothing until the job runs, then finishes with its result", async () => {
    const accepted = await ok(crm.client, "suspend_all_invoice_delivery", {
      customer_id: "C-2001",
      idempotency_key: key("all"),
    });
    expect(crm.checkOutput("suspend_all_invoice_delivery", accepted)).toBeNull();
    expect(accepted).toMatchObject({
      customer_id: "C-2001",
      status: "running",
      job_id: expect.stringMatching(/^job_/),
    });
    expect(await suspendedOf("C-2001")).toBe(0);
    const done = await until(async () => {
      const status = await ok(crm.client, "get_job_status", { job_id: accepted.job_id });
      return status.status === "succeeded" ? status : null;
    });
    expect(crm.checkOutput("get_job_status", done)).toBeNull();
    const total = (await state(crm.t.crm.baseUrl)).invoices.filter((i: any) => i.customer_id === "C-2001").length;
    expect(done.result).toEqual({ suspended_count: total });
    expect(await suspendedOf("C-2001")).toBe(total);
  });

  it("stays running while hold_jobs is on; a cancel stops it and nothing is suspended", async () => {
    await setFaults(crm.t.crm.baseUrl, { hold_jobs: true });
    const accepted = await ok(crm.client, "suspend_all_invoice_delivery", {
      customer_id: "C-2001",
      idempotency_key: key("all"),
    });
    expect((await ok(crm.client, "get_job_status", { job_id: accepted.job_id })).status).toBe("running");
    const cancelled = await ok(crm.client, "cancel_job", { job_id: accepted.job_id, idempotency_key: key("cancel") });
    expect(cancelled).toMatchObject({ outcome: "cancelled", status: "cancelled" });
    await setFaults(crm.t.crm.baseUrl, { hold_jobs: false });
    expect((await ok(crm.client, "get_job_status", { job_id: accepted.job_id })).status).toBe("cancelled");
    expect(await suspendedOf("C-2001")).toBe(0);
  });

  it("reports a finished job as already finished, unchanged; an unknown job is NOT_FOUND", async () => {
    const accepted = await ok(crm.client, "suspend_all_invoice_delivery", {
      customer_id: "C-1842",
      idempotency_key: key("all"),
    });
    await until(async () =>
      (await ok(crm.client, "get_job_status", { job_id: accepted.job_id })).status === "succeeded" ? true : null,
    );
    const late = await ok(crm.client, "cancel_job", { job_id: accepted.job_id, idempotency_key: key("cancel") });
    expect(late).toMatchObject({ outcome: "already_finished", status: "succeeded" });
    expect(await fails(crm.client, "get_job_status", { job_id: "job_0000000000000000" })).toMatchObject({
      code: "NOT_FOUND",
      field: "/job_id",
    });
  });
});
