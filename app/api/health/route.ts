import { db } from "@/lib/db";

export const dynamic = "force-dynamic";

// GET /api/health — 200 when the database answers, 503 otherwise
export async function GET(): Promise<Response> {
  try {
    await db.$queryRawUnsafe("SELECT 1");
    return Response.json({ status: "ok", database: "reachable" });
  } catch {
    return Response.json({ status: "unavailable", database: "unreachable" }, { status: 503 });
  }
}
