export const dynamic = "force-dynamic";

const bodies = new Map<number, string>();

// GET /api/bench/bare?bytes=N — the benchmarks' baseline: a bare route handler
// returning N bytes of JSON with no auth and no database. Off unless GUICHET_BENCH=1.
export function GET(request: Request): Response {
  if (process.env.GUICHET_BENCH !== "1") return new Response(null, { status: 404 });
  const bytes = Math.min(Math.max(Number(new URL(request.url).searchParams.get("bytes") ?? 100), 20), 1_000_000);
  let body = bodies.get(bytes);
  if (!body) {
    body = JSON.stringify({ data: "x".repeat(bytes - 11) });
    bodies.set(bytes, body);
  }
  return new Response(body, { headers: { "content-type": "application/json; charset=utf-8" } });
}
