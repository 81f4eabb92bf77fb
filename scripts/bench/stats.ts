// The one way the benchmark turns samples (milliseconds) into figures.

export interface LatencyFigures {
  mean_ms: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
}

const round = (n: number, decimals: number) => Number(n.toFixed(decimals));

/** The sample at quantile `q` (0–1): nearest rank, so p50 of [1, 2, 3, 4] is 3. */
export function percentile(samples: readonly number[], q: number, decimals = 2): number {
  if (samples.length === 0) throw new Error("percentile of no samples");
  const sorted = [...samples].sort((a, b) => a - b);
  return round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))], decimals);
}

export function latency(samples: readonly number[], decimals = 2): LatencyFigures {
  return {
    mean_ms: round(samples.reduce((sum, x) => sum + x, 0) / samples.length, decimals),
    p50_ms: percentile(samples, 0.5, decimals),
    p95_ms: percentile(samples, 0.95, decimals),
    p99_ms: percentile(samples, 0.99, decimals),
  };
}
