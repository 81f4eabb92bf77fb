import "server-only";
import type OpenAI from "openai";
import { db, isUniqueViolation, Prisma } from "@/lib/db";
import { findFirstOnDriver } from "@/lib/db/driver";
import { log } from "@/lib/log";
import type { RunEventData, RunEventType } from "@/lib/runs/event-schemas";
import type { RequiredAction, RunFailure, RunOutput, RunUsage } from "@/lib/runs/schemas";
import { effectiveStatus, type RunRow } from "@/lib/runs/service";
import { traceAnswer } from "@/lib/traces/record";
import type { PendingApproval } from "./approvals";
import {
  announceRunEvent,
  emitRunEvent,
  forgetRunSeq,
  heldEventRows,
  heldEventsStored,
  knownNextSeq,
  type HeldRunEvent,
} from "./events";
import { INSTANCE_ID, leaseUntil, NO_LEASE } from "./lease";
import {
  moveActiveRun,
  saveProgressAsRecord,
  saveProgressOnDriver,
  type HeldRows,
  type StatusDetails,
  type StatusEventType,
} from "./store";

// A managed run's state between its steps, as the loop (./loop.ts) keeps it:
// the conversation, the usage so far and the events it holds, and the one way
// it leaves `active` (paused for a client's outputs or for people, completed,
// failed).
//
// The conversation is stored after each model answer that calls tools (but
// one whose calls are all safely repeatable reads, ./turn.ts) and after each
// tool result (`save`), with the events held since the last write
// and the renewed lease, in one transaction: a run taken over by another
// instance (./takeover.ts) goes on from there, so no tool result is lost and
// none is stored twice. Every write is fenced by the lease: a loop that lost
// its run (cancelled, taken over) writes nothing more. A streamed run's events
// are stored as they happen: its reader shows them live. Held events are
// stored before a pause's or end's own event, so the numbering keeps the order.

type Message = OpenAI.Chat.ChatCompletionMessageParam;

export const INTERNAL_FAILURE: RunFailure = {
  code: "internal_error",
  message: "Guichet could not go on with this run because of an internal error; nothing more will run in it.",
  field: null,
};

/**
 * Test stacks only (GUICHET_TEST_STACK=1): a run whose metadata asks for it meets a real database error
 * where it names — `store_error` when it stores its first tool result, `opening_error` when its opening is
 * stored — so the suites see what an unexpected error does to a run.
 */
export async function injectedFault(
  run: Pick<RunRow, "metadata">,
  point: "store_error" | "opening_error",
): Promise<void> {
  if (process.env.GUICHET_TEST_STACK !== "1") return;
  const metadata = run.metadata as Record<string, unknown> | null;
  if (metadata?.guichet_test_fault === point) await db.$queryRawUnsafe('SELECT 1 FROM "NoSuchTable"');
}

/**
 * A managed run stored but never opened (its opening refused): it ends failed at once, rather than waiting
 * for its expiry as an active run that nothing executes. Only while it is still unopened (no model).
 */
export async function failUnopened(run: Pick<RunRow, "id" | "organizationId">): Promise<void> {
  log("error", "run.opening_failed", { run: run.id });
  await db.run.updateMany({
    where: { id: run.id, organizationId: run.organizationId, status: "active", modelId: null },
    data: { status: "failed", failure: INTERNAL_FAILURE as unknown as Prisma.InputJsonObject },
  });
}

export class RunState {
  readonly usage: RunUsage;
  /** The status this loop moved the run to when it left `active`; null while it has not. */
  leftWith: string | null = null;
  private held: HeldRunEvent[] = [];
  /** How many messages of the conversation are stored: by the caller just before the loop, or by `save`. */
  private savedLength: number;
  /**
   * The last write of the run (the caller's, or `save`'s, fenced by status and lease) is the loop's last
   * look at the database: it found the run active and this instance's, as a read would now.
   */
  private confirmed: boolean;
  constructor(
    readonly run: RunRow,
    readonly messages: Message[],
    usage: RunUsage | null,
    stored: boolean,
  ) {
    this.usage = usage ?? { input_tokens: 0, output_tokens: 0, model_calls: [] };
    this.savedLength = stored ? messages.length : -1;
    this.confirmed = stored;
  }

  addUsage(call: RunUsage["model_calls"][number]): void {
    this.usage.model_calls.push(call);
    this.usage.input_tokens += call.input_tokens;
    this.usage.output_tokens += call.output_tokens;
  }

  /** Stores the event now when the run streams, else with the run's next write. */
  async record<T extends RunEventType>(type: T, data: RunEventData<T>): Promise<void> {
    if (this.run.stream) await emitRunEvent(this.run, type, data);
    else this.held.push({ type, data });
  }

  /**
   * Writes the held events with `write`, in one transaction, with the number of the event that may follow
   * them in it (when known). A number taken meanwhile by another writer (which one loop per run makes
   * unexpected) fails the whole transaction: it is tried again numbered from the database, up to three times.
   */
  async withHeld<T>(write: (rows: HeldRows, nextSeq: number | undefined) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      const rows = await heldEventRows(this.run, this.held);
      try {
        const result = await write(rows, knownNextSeq(this.run.id, rows));
        this.held = [];
        heldEventsStored(this.run.id, rows);
        return result;
      } catch (error) {
        forgetRunSeq(this.run.id);
        if (!isUniqueViolation(error) || attempt >= 3) throw error;
      }
    }
  }

  private progress() {
    return {
      transcript: this.messages as unknown as Prisma.InputJsonArray,
      usage: this.usage as unknown as Prisma.InputJsonObject,
    };
  }

  /** The run's status and lease read again: on the driver when it can, else through Prisma. */
  private async stillOurs(): Promise<boolean> {
    const where = { id: this.run.id, organizationId: this.run.organizationId };
    const select = { status: true, expiresAt: true, leaseOwner: true } as const;
    const state = await findFirstOnDriver("Run", select, where, () => db.run.findFirst({ where, select }));
    return state !== null && effectiveStatus(state) === "active" && state.leaseOwner === INSTANCE_ID;
  }

  /**
   * Stores the conversation, the usage and the held events, and renews the lease, in one transaction; `extra`
   * columns go with them. False when the run is no longer active or no longer this instance's: the loop stops.
   */
  async save(extra: Prisma.RunUpdateManyMutationInput = {}): Promise<boolean> {
    await injectedFault(this.run, "store_error");
    const data = { ...this.progress(), leaseExpiresAt: leaseUntil(), ...extra };
    // The statements written by hand store SQL NULL where Prisma takes its DbNull marker.
    const columns = Object.fromEntries(
      Object.entries(data).map(([column, value]) => [column, value === Prisma.DbNull ? null : value]),
    );
    const where = {
      id: this.run.id,
      organizationId: this.run.organizationId,
      status: "active",
      leaseOwner: INSTANCE_ID,
    };
    const saved = await this.withHeld(async (rows) => {
      const written =
        (await saveProgressAsRecord(this.run, columns, rows)) ?? (await saveProgressOnDriver(this.run, columns, rows));
      if (written !== null) return written;
      const update = () => db.run.updateMany({ where, data });
      if (!rows.length) return (await update()).count === 1;
      const [moved] = await db.$transaction([update(), db.runEvent.createMany({ data: rows })]);
      return moved.count === 1;
    });
    this.savedLength = this.messages.length;
    this.confirmed = saved;
    return saved && new Date() < this.run.expiresAt;
  }

  /**
   * Before a model call: false when the run is no longer active (cancelled, expired) or no longer this
   * instance's. A conversation that grew since the last write is stored first; otherwise it is read, unless
   * the loop's last step was that write (a cancel landing after either is seen at the next step).
   */
  async checkpoint(): Promise<boolean> {
    if (this.messages.length !== this.savedLength || this.held.length) return this.save();
    const confirmed = this.confirmed;
    this.confirmed = false;
    return (confirmed && new Date() < this.run.expiresAt) || this.stillOurs();
  }

  /** Waits for the API client's outputs of its client tools (POST /v1/runs/{run}/tool_outputs resumes). */
  async pause(action: RequiredAction): Promise<void> {
    await this.leaveActive(
      { status: "requires_action", requiredAction: action as unknown as Prisma.InputJsonObject },
      "run.requires_action",
      { required_action: action },
    );
  }

  /** Waits for people to decide the held calls' proposals; a job resumes the run (see approvals.ts). */
  waitForApproval(approval: PendingApproval): Promise<boolean> {
    const proposals = approval.calls.map((call) => call.proposal_id);
    return this.leaveActive(
      { status: "requires_approval", pendingApproval: approval as unknown as Prisma.InputJsonObject },
      "run.requires_approval",
      { proposals },
      { proposals },
    );
  }

  /** Ends the run, unless something else ended it first (a cancel wins). */
  async finish(
    end: { status: "completed"; output: RunOutput } | { status: "failed"; failure: RunFailure },
  ): Promise<void> {
    await traceAnswer(this.run, end);
    if (end.status === "completed")
      await this.leaveActive({ status: "completed", output: end.output as Prisma.InputJsonObject }, "run.completed", {
        output: end.output,
        usage: this.usage,
      });
    else
      await this.leaveActive(
        { status: "failed", failure: end.failure as unknown as Prisma.InputJsonObject },
        "run.failed",
        { error: end.failure, usage: this.usage },
        { failureCode: end.failure.code },
      );
  }

  /** Moves the run out of `active` with its conversation and held events; false when it had already left. */
  private async leaveActive<T extends StatusEventType>(
    data: Prisma.RunUpdateManyMutationInput,
    type: T,
    event: RunEventData<T>,
    details: StatusDetails = {},
  ): Promise<boolean> {
    const moved = await this.withHeld((rows, nextSeq) =>
      moveActiveRun(this.run, { ...data, ...this.progress(), ...NO_LEASE }, rows, nextSeq, type, event, details),
    );
    if (moved) {
      if (typeof data.status === "string") this.leftWith = data.status;
      announceRunEvent(this.run.id);
    }
    return moved;
  }
}

/**
 * An error Guichet did not expect while driving a run: the run fails with a typed `internal_error` (never
 * left active behind a 500); the log names the error's kind only, never its message (it may quote data).
 */
export async function failUnexpectedly(run: RunRow, error: unknown, state?: RunState): Promise<void> {
  log("error", "run.loop_failed", { run: run.id, error: error instanceof Error ? error.name : "unknown" });
  if (state) {
    try {
      return await state.finish({ status: "failed", failure: INTERNAL_FAILURE });
    } catch {
      // The conversation itself may be what the database refused: the run ends without saving it.
    }
  }
  // Without the loop's state, the stored conversation is left as it is; the events it held are stored.
  const end = (rows: HeldRows, nextSeq?: number) =>
    moveActiveRun(
      run,
      { status: "failed", failure: INTERNAL_FAILURE as unknown as Prisma.InputJsonObject, ...NO_LEASE },
      rows,
      nextSeq,
      "run.failed",
      { error: INTERNAL_FAILURE, usage: state?.usage ?? null },
      { failureCode: INTERNAL_FAILURE.code },
    );
  let ended;
  try {
    ended = state ? await state.withHeld(end) : await end([]);
  } catch {
    try {
      // The held events may be what the database refused: the run ends without them.
      ended = await end([]);
    } catch {
      // Not even its event could be stored: the run still leaves `active`, with its failure, never held behind.
      const moved = await db.run.updateMany({
        where: { id: run.id, organizationId: run.organizationId, status: "active", leaseOwner: INSTANCE_ID },
        data: { status: "failed", failure: INTERNAL_FAILURE as unknown as Prisma.InputJsonObject, ...NO_LEASE },
      });
      ended = moved.count === 1;
    }
  }
  if (ended) announceRunEvent(run.id);
}
