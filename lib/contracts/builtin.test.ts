import { describe, expect, it } from "vitest";
import { builtinTools } from "@/lib/catalog/builtin";
import { builtinExecutorKeys } from "@/lib/executors";
import { builtinContract, builtinContracts, currentBuiltinContract, isBuiltinKey } from "./builtin";
import { compileSchema } from "./schema";

describe("built-in contracts", () => {
  it("cover exactly the built-in catalog, each with an executor of the same key", () => {
    const keys = [...new Set(builtinContracts.map((e) => e.contract.key))].sort();
    expect(keys).toEqual(builtinTools.map((t) => t.key).sort());
    expect(builtinExecutorKeys().sort()).toEqual(keys);
  });

  it("compile both schemas in strict 2020-12 mode and close every input object", () => {
    for (const { contract } of builtinContracts) {
      expect(() => compileSchema(contract.input_schema), contract.key).not.toThrow();
      expect(() => compileSchema(contract.output_schema), contract.key).not.toThrow();
      expect(contract.input_schema.additionalProperties, contract.key).toBe(false);
      expect(contract.input_schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    }
  });

  it("are reads that retry safely, with a timeout, an argument limit and a result view", () => {
    for (const { contract } of builtinContracts) {
      expect(contract).toMatchObject({
        effect: "read",
        retry: "safe",
        idempotency: null,
        cancellation: "abort",
        mcp: null,
      });
      expect(contract.timeout_ms).toBeGreaterThan(0);
      expect(contract.max_argument_bytes).toBeGreaterThan(0);
      expect(contract.result_view.length).toBeGreaterThan(0);
    }
  });

  it("resolve by exact key and version only", () => {
    expect(currentBuiltinContract("calculate")?.version).toBe(1);
    expect(builtinContract("calculate", 1)?.contract.key).toBe("calculate");
    expect(builtinContract("calculate", 2)).toBeUndefined();
    for (const key of [
      "constructor",
      "__proto__",
      "toString",
      "Calculate",
      "calculate ",
      "calculate@1",
      "mcp_1_get_customer",
    ]) {
      expect(isBuiltinKey(key)).toBe(false);
      expect(currentBuiltinContract(key)).toBeUndefined();
    }
  });
});
