import { readFileSync } from "node:fs";
import path from "node:path";
import { env } from "@/lib/env";

// The secret's file, read once per process: it is written before the server starts and never changes under
// it, and every session cookie, consent and widget token would otherwise read it from disk again.
let fromFile: string | undefined;

/**
 * NEXTAUTH_SECRET, or the one `npm start` wrote under the data directory for the
 * quickstart. Never a guessable default: without either, requests fail loudly.
 */
export function authSecret(): string {
  if (env.NEXTAUTH_SECRET) return env.NEXTAUTH_SECRET;
  try {
    return (fromFile ??= readFileSync(path.join(env.dataDir, "auth-secret"), "utf8").trim());
  } catch {
    // `next build` evaluates route modules but signs nothing.
    if (process.env.NEXT_PHASE === "phase-production-build") return "build-phase-placeholder-not-used";
    throw new Error("NEXTAUTH_SECRET is not set and no data/auth-secret exists (npm start creates one).");
  }
}
