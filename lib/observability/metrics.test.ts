import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createMetrics, fieldLabel } from "./metrics";

describe("fieldLabel", () => {
  it("folds array indexes so that one field is one label value", () => {
    expect(fieldLabel("/items/3/sku")).toBe("/items/*/sku");
    expect(fieldLabel("/items/12")).toBe("/items/*");
    expect(fieldLabel("/address/line1")).toBe("/address/line1");
  });

  it("bounds the length and maps no field to the empty label", () => {
    expect(fieldLabel(null)).toBe("");
    expect(fieldLabel(`/${"a".repeat(500)}`)).toHaveLength(120);
  });
});

describe("docs/grafana-dashboard.json", () => {
  it("has a panel for every metric, and queries no metric that does not exist", async () => {
    const declared = (await createMetrics().registry.getMetricsAsJSON()).map((metric) => metric.name).sort();
    const dashboard = JSON.parse(readFileSync("docs/grafana-dashboard.json", "utf8")) as {
      panels: { targets: { expr: string }[] }[];
    };
    const queried = new Set(
      dashboard.panels.flatMap((panel) =>
        panel.targets.flatMap((target) =>
          (target.expr.match(/guichet_[a-z_]+/g) ?? []).map((name) => name.replace(/_(bucket|sum|count)$/, "")),
        ),
      ),
    );
    expect([...queried].sort()).toEqual(declared);
  });
});
