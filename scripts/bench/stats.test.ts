import { describe, expect, it } from "vitest";
import { latency, percentile } from "./stats";

describe("the benchmark's figures", () => {
  it("takes the nearest rank, whatever the order of the samples", () => {
    expect(percentile([4, 1, 3, 2], 0.5)).toBe(3);
    expect(percentile([4, 1, 3, 2], 0.99)).toBe(4);
    expect(percentile([7], 0.95)).toBe(7);
  });

  it("summarizes samples with the asked precision", () => {
    const samples = Array.from({ length: 100 }, (_, i) => i + 0.12345);
    expect(latency(samples, 3)).toEqual({ mean_ms: 49.623, p50_ms: 50.123, p95_ms: 95.123, p99_ms: 99.123 });
  });

  it("refuses to make a figure out of nothing", () => {
    expect(() => percentile([], 0.5)).toThrow("no samples");
  });
});
