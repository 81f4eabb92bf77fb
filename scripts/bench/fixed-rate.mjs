// A load generator at a fixed offered rate, in a process of its own, for the
// latency Guichet adds: it sends the requests of several targets in turn (A, B,
// A, B…), one every 1/rate seconds in all, each on its own kept-alive
// connections, and times each answer to the microsecond. Both targets see the
// same machine at the same moments, and neither shares an event loop with the
// servers it measures (autocannon in the bench's process shared one with CRM
// Acme, which the test stack starts there).
//
// Input: one JSON argument { rate, seconds, warmupSeconds, targets: [{ name, url, method, headers, body }] }.
// Output: one JSON line { targets: [{ name, sent, ok, errors, achieved, p50, p90, p99 }] } (milliseconds).
import http from "node:http";

const config = JSON.parse(process.argv[2]);
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function send(target) {
  return new Promise((resolve) => {
    const url = new URL(target.url);
    const started = process.hrtime.bigint();
    const request = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: target.method ?? "GET",
        headers: { ...target.headers, ...(target.body ? { "content-length": Buffer.byteLength(target.body) } : {}) },
      },
      (response) => {
        response.resume();
        response.on("end", () =>
          resolve({ ok: response.statusCode >= 200 && response.statusCode < 300, ms: elapsed(started) }),
        );
        response.on("error", () => resolve({ ok: false, ms: elapsed(started) }));
      },
    );
    request.on("error", () => resolve({ ok: false, ms: elapsed(started) }));
    request.end(target.body);
  });
}

function elapsed(started) {
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] * 1000) / 1000;
}

async function phase(seconds, record) {
  const interval = 1000 / config.rate;
  const total = Math.round(seconds * config.rate);
  const pending = [];
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const target = config.targets[i % config.targets.length];
    pending.push(send(target).then((result) => record && record(target.name, result)));
  }
  await Promise.all(pending);
  return (performance.now() - start) / 1000;
}

const results = new Map(config.targets.map((t) => [t.name, { sent: 0, ok: 0, errors: 0, latencies: [] }]));
await phase(config.warmupSeconds ?? 1, null);
const seconds = await phase(config.seconds, (name, { ok, ms }) => {
  const r = results.get(name);
  r.sent++;
  if (ok) {
    r.ok++;
    r.latencies.push(ms);
  } else r.errors++;
});
agent.destroy();
console.log(
  JSON.stringify({
    targets: [...results].map(([name, r]) => {
      const sorted = r.latencies.sort((a, b) => a - b);
      return {
        name,
        sent: r.sent,
        ok: r.ok,
        errors: r.errors,
        achieved: Math.round((r.sent / seconds) * 10) / 10,
        p50: percentile(sorted, 0.5),
        p90: percentile(sorted, 0.9),
        p99: percentile(sorted, 0.99),
      };
    }),
  }),
);
