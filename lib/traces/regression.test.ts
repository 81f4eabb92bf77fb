import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { builtinContracts } from "@/lib/contracts/builtin";
import { REFERENCE_PREFIX } from "@/lib/contracts/lock";
import { referenceContracts } from "@/lib/contracts/reference";
import type { Contract } from "@/lib/contracts/types";
import { CommittedTrace, TRACES_DIR } from "@/tests/traces/format";
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

/** One line per known-good call the current contracts would refuse (or whose tool is gone). */
function regressions(file: string, trace: CommittedTrace, contracts: Map<string, Contract>): string[] {
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
    );
    for (const refused of report.now_refused)
      failures.push(
        `${file}: ${refused.trace} — ${tool}@${contract.version} now refuses it: ${refused.code} at ${refused.field ?? "/"}` +
          `${refused.redacted ? " (a redacted value)" : ""}: ${refused.message}`,
      );
  }
  return failures;
}

let contracts: Map<string, Contract>;

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

  it("would fail on a trace where a planted e-mail, phone or IBAN slipped through", () => {
    const { trace } = traces[0];
    const planted = structuredClone(trace);
    (planted.events[0] as { payload: unknown }).payload = {
      note: "Écrire à camille.martin@example.com, FR7630006000011234567890189, +33 6 12 34 56 78",
    };
    expect(findLeaks(planted).map((leak) => leak.kind)).toEqual(["email", "iban", "phone"]);
  });
});
