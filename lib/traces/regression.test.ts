import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { builtinContracts } from "@/lib/contracts/builtin";
import { REFERENCE_PREFIX } from "@/lib/contracts/lock";
import { referenceContracts } from "@/lib/contracts/reference";
import type { Contract } from "@/lib/contracts/types";
import { CommittedTrace, TRACES_DIR } from "@/tests/traces/format";
import { defaultPolicyRules } from "@/lib/policies/defaults";
import { PolicyRules, type PolicyRule } from "@/lib/policies/rules";
import type { CallEffects } from "./effects";
import { findLeaks } from "./redact";
import { checkRecordedCalls } from "./replay";

// The regression suite from traces: the committed, redacted traces of the demo
// scenarios (tests/traces/*.json) replayed, through the replay's own
// validation, against the contracts the code publishes now — CRM Acme's as a
// review of today's connector derives them, the newest built-in versions. A
// contract change that would refuse a call known to be good fails here, naming
// the trace, the tool, the field and the code. When the change is intended,
// `npm run traces:record` records the scenarios again; commit the new traces
// with the change.

const UPDATE_HINT = "If this contract change is intended, run `npm run traces:record` and commit tests/traces/.";

const files = readdirSync(TRACES_DIR)
  .filter((name) => name.endsWith(".json"))
  .sort();
const traces = files.map((name) => ({
  name,
  trace: CommittedTrace.parse(JSON.parse(readFileSync(path.join(TRACES_DIR, name), "utf8"))),
}));

/** Each committed tool name's current contract: `crm_acme.<tool>` from the reference connector, else the newest live built-in. */
function currentContracts(reference: Contract[]): Map<string, Contract> {
  const current = new Map<string, Contract>();
  for (const { contract, retired } of builtinContracts) {
    const known = current.get(contract.key);
    if (!retired && (!known || known.version < contract.version)) current.set(contract.key, contract);
  }
  for (const contract of reference) current.set(`${REFERENCE_PREFIX}${contract.mcp!.tool}`, contract);
  return current;
}

/** The table every organization starts with: the committed traces were recorded under it. */
const defaultPolicy = { version: 0, rules: PolicyRules.parse(defaultPolicyRules) };

function describeEffects({ effect, approval }: CallEffects): string {
  const need = approval ? `${approval.decision}×${approval.approvals_required}` : "no approval";
  return `${effect}, ${need}`;
}

/** One line per known-good call the current contracts would refuse, or run with another effect or approval need (or whose tool is gone). */
function regressions(
  file: string,
  trace: CommittedTrace,
  contracts: Map<string, Contract>,
  policy: { version: number; rules: readonly PolicyRule[] } = defaultPolicy,
): string[] {
  const calls = trace.events.filter((event) => event.kind === "call" && event.valid === true);
  const failures: string[] = [];
  for (const tool of [...new Set(calls.map((call) => call.tool ?? "(no tool)"))]) {
    const mine = calls.filter((call) => (call.tool ?? "(no tool)") === tool);
    const contract = contracts.get(tool);
    if (!contract) {
      failures.push(`${file}: ${mine.map((c) => c.id).join(", ")} call ${tool}, which the catalog no longer has.`);
      continue;
    }
    const report = checkRecordedCalls(
      contract,
      mine.map((call) => ({ trace: call.id, run: String(call.run), payload: call.payload })),
      policy,
      (name) => contracts.get(name)?.key ?? name,
    );
    for (const refused of report.now_refused)
      failures.push(
        `${file}: ${refused.trace} — ${tool}@${contract.version} now refuses it: ${refused.code} at ${refused.field ?? "/"}` +
          `${refused.redacted ? " (a redacted value)" : ""}: ${refused.message}`,
      );
    for (const moved of report.effects_changed)
      failures.push(
        `${file}: ${moved.trace} — ${tool}@${contract.version} changes its ${moved.changed.join(" and ")}: ` +
          `${describeEffects(moved.recorded)} → ${describeEffects(moved.now)}`,
      );
  }
  return failures;
}

let contracts: Map<string, Contract>;

interface ModelRequest {
  messages: number;
  tools: number;
  tools_sha256: string;
}

/** The proposal a recorded call made or committed: its policy's, else its arguments' proposal_id. */
function proposalOf(payload: unknown): string | null {
  const call = payload as { arguments?: { proposal_id?: unknown } };
  return typeof call.arguments?.proposal_id === "string" ? call.arguments.proposal_id : null;
}

beforeAll(async () => {
  contracts = currentContracts(await referenceContracts());
});

describe("the committed traces of the demo scenarios", () => {
  it("are there, one file per scenario, each with calls to replay", () => {
    expect(files).toEqual([
      "address-change.json",
      "customer-care-writes.json",
      "customer-lookup.json",
      "managed-address-change.json",
    ]);
    for (const { name, trace } of traces) {
      expect(`${trace.scenario}.json`).toBe(name);
      expect(trace.events.filter((e) => e.kind === "call" && e.valid).length, name).toBeGreaterThan(0);
    }
    // Every write tool of the reference connector has at least one recorded call.
    const called = new Set(traces.flatMap(({ trace }) => trace.events.map((e) => e.tool)));
    const writes = [...contracts].filter(([, c]) => c.effect === "write" && c.mcp?.tool !== "cancel_job");
    expect(writes.map(([name]) => name).filter((name) => !called.has(name))).toEqual([]);
  });

  it.each(traces)(
    "$name: every call that passed when recorded still passes the current contracts",
    ({ name, trace }) => {
      expect(regressions(name, trace, contracts), UPDATE_HINT).toEqual([]);
    },
  );

  it.each(traces)(
    "$name: holds no e-mail, phone number, IBAN or secret (the redaction's own detectors)",
    ({ trace }) => {
      expect(findLeaks(trace)).toEqual([]);
    },
  );

  it("would fail the build on a contract that refuses a known-good call, naming trace, tool, field and code", () => {
    const { name, trace } = traces.find((t) => t.name === "address-change.json")!;
    const preview = contracts.get("crm_acme.preview_address_change")!;
    const input = preview.input_schema as { properties: Record<string, unknown>; required: string[] };
    // A tightened copy: a new required field, and the saved destination's kind no longer accepted.
    const tightened: Contract = {
      ...preview,
      version: 2,
      input_schema: {
        ...input,
        properties: { ...input.properties, reason: { type: "string", minLength: 1 } },
        required: [...input.required, "reason"],
      },
    };
    const failures = regressions(name, trace, new Map([...contracts, ["crm_acme.preview_address_change", tightened]]));
    const previews = trace.events.filter((e) => e.tool === "crm_acme.preview_address_change" && e.kind === "call");
    expect(previews.length).toBeGreaterThan(0);
    expect(failures).toEqual(
      previews.map((e) =>
        expect.stringMatching(
          new RegExp(
            `^address-change\\.json: ${e.id} — crm_acme\\.preview_address_change@2 now refuses it: INVALID_ARGUMENTS at /reason: `,
          ),
        ),
      ),
    );
    // The untouched contracts still accept the same trace, and a tool gone from the catalog is named too.
    expect(regressions(name, trace, contracts)).toEqual([]);
    const withoutGetOperation = new Map([...contracts].filter(([key]) => key !== "get_operation"));
    expect(regressions(name, trace, withoutGetOperation)).toEqual([
      expect.stringMatching(
        /^address-change\.json: address-change#\d+ call get_operation, which the catalog no longer has\.$/,
      ),
    ]);
  });

  it("record each call's effect, and the policy of each proposal a call made or committed", () => {
    for (const { name, trace } of traces) {
      for (const call of trace.events.filter((e) => e.kind === "call")) {
        const payload = call.payload as { effect?: unknown; policy?: { tool: string } | null };
        expect({ call: call.id, effect: payload.effect }).toEqual({ call: call.id, effect: expect.any(String) });
        const proposal = trace.events.find(
          (e) => e.kind === "approval" && (e.payload as { proposal: string }).proposal === proposalOf(call.payload),
        );
        // A call that made or committed an approved proposal carries the policy that asked for the approval.
        if (proposal)
          expect({ name, call: call.id, tool: payload.policy?.tool }).toEqual({
            name,
            call: call.id,
            tool: proposal.tool,
          });
      }
    }
  });

  it("record a managed run's model requests, its approval and its answer, in order", () => {
    const { trace } = traces.find((t) => t.name === "managed-address-change.json")!;
    const kinds = trace.events.map((e) => e.kind);
    expect(kinds[0]).toBe("catalog");
    expect(kinds[1]).toBe("model_request");
    expect(kinds.at(-1)).toBe("answer");
    const catalogSize = (trace.events[0].payload as { tools: unknown[] }).tools.length;
    const requests = trace.events.filter((e) => e.kind === "model_request").map((e) => e.payload as ModelRequest);
    expect(requests.length).toBeGreaterThanOrEqual(2);
    for (const [index, request] of requests.entries()) {
      // Counts and a hash, never the messages' text: the conversation only grows, the tool list stays the run's.
      expect(Object.keys(request).sort()).toEqual(["messages", "tools", "tools_sha256"]);
      expect(request.tools_sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(request.tools_sha256).toBe(requests[0].tools_sha256);
      expect(request.tools).toBeLessThanOrEqual(catalogSize);
      if (index > 0) expect(request.messages).toBeGreaterThan(requests[index - 1].messages);
    }
    const approval = trace.events.find((e) => e.kind === "approval")!;
    expect(approval).toMatchObject({
      tool: "crm_acme.commit_address_change",
      payload: { decision: "approve", role: "approver", text: null },
    });
    const commitIndex = trace.events.findIndex(
      (e) => e.kind === "call" && proposalOf(e.payload) === (approval.payload as { proposal: string }).proposal,
    );
    expect(commitIndex).toBeGreaterThan(trace.events.indexOf(approval));
    expect(trace.events[commitIndex]).toMatchObject({
      tool: "crm_acme.commit_address_change",
      payload: { outcome: { ok: true } },
    });
    const answer = trace.events.at(-1)!.payload as { status: string; output: { text: string } };
    expect(answer.status).toBe("completed");
    expect(answer.output.text.length).toBeGreaterThan(0);
    // The API scenarios have no model: no model request, no answer; each approval comes before its commit.
    for (const { name, trace: other } of traces.filter((t) => t.name !== "managed-address-change.json")) {
      expect({ name, kinds: other.events.filter((e) => e.kind === "model_request" || e.kind === "answer") }).toEqual({
        name,
        kinds: [],
      });
      for (const decision of other.events.filter((e) => e.kind === "approval")) {
        const proposal = (decision.payload as { proposal: string }).proposal;
        const committed = other.events.findIndex(
          (e) =>
            e.kind === "call" &&
            (e.payload as { arguments: { proposal_id?: string } }).arguments?.proposal_id === proposal,
        );
        expect({ name, proposal, after: committed > other.events.indexOf(decision) }).toEqual({
          name,
          proposal,
          after: true,
        });
      }
    }
  });

  it("would fail on a policy change that moves an approval need, naming the calls and what changed", () => {
    const { name, trace } = traces.find((t) => t.name === "customer-care-writes.json")!;
    expect(regressions(name, trace, contracts)).toEqual([]);
    // Every refund now needs two people.
    const stricter = {
      version: 1,
      rules: PolicyRules.parse(
        defaultPolicyRules.map((rule) => (rule.id === "payments" ? { ...rule, approvals_required: 2 } : rule)),
      ),
    };
    const refunds = trace.events.filter((e) => e.kind === "call" && e.tool === "crm_acme.refund_payment");
    expect(refunds.length).toBe(2);
    expect(regressions(name, trace, contracts, stricter)).toEqual(
      refunds.map(
        (e) =>
          `customer-care-writes.json: ${e.id} — crm_acme.refund_payment@${contracts.get("crm_acme.refund_payment")!.version} changes its approval: write, require_approval×1 → write, require_approval×2`,
      ),
    );
  });

  it("would fail on a schema change that turns a write into a read, or a read into a write", () => {
    const { name, trace } = traces.find((t) => t.name === "customer-care-writes.json")!;
    const email = contracts.get("crm_acme.send_email")!;
    const lookup = contracts.get("crm_acme.get_customer")!;
    const changed = new Map([
      ...contracts,
      ["crm_acme.send_email", { ...email, version: 2, effect: "read" as const }],
      ["crm_acme.get_customer", { ...lookup, version: 2, effect: "write" as const }],
    ]);
    // A send_email read would also refuse its recorded arguments; the effect lines are the point here.
    const failures = regressions(name, trace, changed).filter((line) => line.includes(" changes its "));
    const emails = trace.events.filter((e) => e.kind === "call" && e.tool === "crm_acme.send_email");
    const lookups = trace.events.filter((e) => e.kind === "call" && e.tool === "crm_acme.get_customer");
    expect(failures).toEqual([
      ...lookups.map(
        (e) =>
          `customer-care-writes.json: ${e.id} — crm_acme.get_customer@2 changes its effect and approval: read, no approval → write, require_approval×1`,
      ),
      ...emails.map(
        (e) =>
          `customer-care-writes.json: ${e.id} — crm_acme.send_email@2 changes its effect and approval: write, require_approval×1 → read, no approval`,
      ),
    ]);
  });

  it("would fail on a trace where a planted e-mail, phone or IBAN slipped through", () => {
    const { trace } = traces[0];
    const planted = structuredClone(trace);
    (planted.events[0] as { payload: unknown }).payload = {
      note: "Écrire à camille.martin@example.com, FR7630006000011234567890189, +33 6 12 34 56 78",
    };
    expect(findLeaks(planted).map((leak) => leak.kind)).toEqual(["email", "iban", "phone"]);
  });
});
