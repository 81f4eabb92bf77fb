import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { missingBounds } from "./bounds";
import { builtinContracts, currentBuiltinContract } from "./builtin";
import { liveFactEnums } from "./live-facts";
import { buildContractsLock, contractFingerprint, REFERENCE_PREFIX, type ContractsLock } from "./lock";
import { referenceContracts } from "./reference";
import type { Contract } from "./types";

// The committed catalog freeze must match what the code and the reference
// connector produce now. To accept a reviewed change: UPDATE_CONTRACTS_LOCK=1
// npx vitest run lib/contracts/lock.test.ts, and commit the lock with it.

const lockFile = path.join(__dirname, "contracts.lock.json");
let reference: Contract[];

beforeAll(async () => {
  reference = await referenceContracts();
});

describe("contracts.lock.json", () => {
  it("matches the catalog the code publishes (a difference is a change to review and commit)", () => {
    const snapshot = buildContractsLock(reference);
    if (process.env.UPDATE_CONTRACTS_LOCK === "1") writeFileSync(lockFile, `${JSON.stringify(snapshot, null, 2)}\n`);
    const committed = JSON.parse(readFileSync(lockFile, "utf8")) as ContractsLock;
    expect(snapshot).toEqual(committed);
  });

  it("never changes a published built-in version", () => {
    const committed = JSON.parse(readFileSync(lockFile, "utf8")) as ContractsLock;
    for (const { contract } of builtinContracts) {
      const name = `${contract.key}@${contract.version}`;
      if (name in committed.builtin_versions)
        expect(
          contractFingerprint(contract),
          `${name} was edited after publication: publish a new version instead`,
        ).toBe(committed.builtin_versions[name]);
    }
  });

  it("gives every write tool an explicit approval policy, never a silent allow", () => {
    const writes = buildContractsLock(reference).roles.read_write.filter((t) => t.effect === "write");
    expect(writes.map((t) => t.tool).sort()).toEqual([
      "crm_acme.cancel_job",
      "crm_acme.commit_address_change",
      "crm_acme.refund_payment",
      "crm_acme.send_email",
      "crm_acme.suspend_all_invoice_delivery",
      "crm_acme.suspend_invoice_delivery",
    ]);
    for (const tool of writes) {
      expect(tool.approval, `${tool.tool} has no policy`).not.toBeNull();
      expect(tool.approval!.decision).toBe("require_approval");
    }
  });

  it("keeps every write out of the read-only role (the role comes from the run's own rule, runMayHold)", () => {
    const { roles } = buildContractsLock(reference);
    expect(roles.read.filter((t) => t.effect !== "read")).toEqual([]);
    expect(roles.read).toEqual(roles.read_write.filter((t) => t.effect === "read"));
    expect(roles.read.length).toBeGreaterThan(0);
  });

  it("fails when a new write tool lacks a policy", () => {
    const unknownWrite: Contract = {
      ...reference.find((c) => c.effect === "write")!,
      key: "mcp_0_delete_everything",
      mcp: { server_id: 0, tool: "delete_everything" },
    };
    const snapshot = buildContractsLock([...reference, unknownWrite]);
    expect(snapshot.roles.read_write.find((t) => t.tool === "crm_acme.delete_everything")?.approval).toBeNull();
  });
});

/** Every contract a new run may get: the current version of each built-in tool, and CRM Acme's tools as Guichet publishes them. */
function publishedContracts(): Contract[] {
  const builtins = [...new Set(builtinContracts.map((e) => e.contract.key))].map((key) => currentBuiltinContract(key)!);
  return [...builtins, ...reference];
}

const nameOf = (c: Contract) => (c.mcp ? `${REFERENCE_PREFIX}${c.mcp.tool}` : c.key);

describe("bounds on every published field", () => {
  it("leaves no input field without the bound its type allows (maxLength, minimum and maximum, maxItems, maxProperties)", () => {
    const contracts = publishedContracts();
    expect(contracts.length).toBe(new Set(builtinContracts.map((e) => e.contract.key)).size + reference.length);
    const unbounded = contracts.flatMap((c) =>
      missingBounds(c.input_schema).map((m) => `${nameOf(c)}@${c.version} ${m.pointer || "/"} lacks ${m.keyword}`),
    );
    expect(unbounded).toEqual([]);
  });

  it("enumerates no live fact in a built-in contract (ids are resolved by a read tool, not listed)", () => {
    const flagged = builtinContracts.flatMap(({ contract }) =>
      [contract.input_schema, contract.output_schema].flatMap((schema) =>
        liveFactEnums(schema).map((f) => `${contract.key}@${contract.version} ${f.pointer} ${f.signals.join("+")}`),
      ),
    );
    expect(flagged).toEqual([]);
  });
});
