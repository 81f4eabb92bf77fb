import { describe, expect, it } from "vitest";
import type { CatalogEntry } from "@/lib/catalog/service";
import { ApiError } from "@/lib/http/errors";
import { assertToolsAddable, normalizeTools, unavailableTools } from "./tools";

const entry = (key: string, available = true): CatalogEntry => ({
  key,
  label: key,
  description: "",
  kind: "native",
  forced: false,
  available,
  reason: available ? null : { code: "mcp_tool_disabled", message: "disabled" },
  server: null,
  writes_data: false,
});
const catalog = new Map(
  [entry("create_chart"), entry("query_table"), entry("mcp_1_off", false)].map((e) => [e.key, e]),
);

function refusal(run: () => void): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("normalizeTools", () => {
  it("drops forced tools and repeats, keeping first positions and order", () => {
    expect(normalizeTools(["calculate", "b", "a", "b", "web_search", "a", "c"])).toEqual([
      { key: "b", index: 1 },
      { key: "a", index: 2 },
      { key: "c", index: 6 },
    ]);
  });
});

describe("assertToolsAddable", () => {
  it("lets saved tools stay even when unavailable or gone", () => {
    expect(() =>
      assertToolsAddable(
        normalizeTools(["mcp_1_off", "mcp_9_gone", "create_chart"]),
        ["mcp_1_off", "mcp_9_gone"],
        catalog,
      ),
    ).not.toThrow();
  });

  it("refuses a new unknown key, then a new unavailable one, naming the position sent", () => {
    const unknown = refusal(() =>
      assertToolsAddable(normalizeTools(["create_chart", "create_chart", "nope"]), [], catalog),
    );
    expect(unknown.code).toBe("unknown_tool");
    expect(unknown.errors).toEqual([expect.objectContaining({ field: "tools[2]" })]);
    const unavailable = refusal(() => assertToolsAddable(normalizeTools(["mcp_1_off"]), [], catalog));
    expect(unavailable.code).toBe("tool_unavailable");
    expect(unavailable.reason).toEqual({ code: "mcp_tool_disabled", message: "disabled" });
  });

  it("counts the limit after normalization: 40 pass, 41 do not", () => {
    const keys = Array.from({ length: 41 }, (_, i) => `k${i}`);
    const saved = keys;
    expect(() =>
      assertToolsAddable(normalizeTools([...keys.slice(0, 40), "web_fetch", "k0"]), saved, catalog),
    ).not.toThrow();
    expect(refusal(() => assertToolsAddable(normalizeTools(keys), saved, catalog)).errors?.[0]).toMatchObject({
      field: "tools",
      code: "too_big",
    });
  });
});

describe("unavailableTools", () => {
  it("lists saved keys that are unavailable or no longer in the catalog", () => {
    expect(unavailableTools(["create_chart", "mcp_1_off", "mcp_9_gone"], catalog)).toEqual(["mcp_1_off", "mcp_9_gone"]);
  });
});
