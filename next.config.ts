import type { NextConfig } from "next";
import { PHASE_DEVELOPMENT_SERVER } from "next/constants";
import { securityHeaders } from "./lib/http/security-headers";

export default function config(phase: string): NextConfig {
  const headers = Object.entries(securityHeaders(phase === PHASE_DEVELOPMENT_SERVER)).map(([key, value]) => ({
    key,
    value,
  }));
  return {
    poweredByHeader: false,
    // Parallel builds (several engineers or CI jobs in one checkout) each use their own folder.
    distDir: process.env.GUICHET_DIST_DIR ?? ".next",
    // Native and server-only packages stay out of the bundle.
    serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "pg", "ioredis"],
    // `npm test` type-checks the whole tree (tsc --noEmit) as its own step; the build need not repeat it.
    typescript: { ignoreBuildErrors: true },
    // Every page and every API answer, errors included (lib/http/security-headers.ts says why).
    headers: async () => [{ source: "/:path*", headers }],
  };
}
