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
    // `next start` loads every route as it starts, so that no visitor waits for a route to load.
    // GUICHET_PRELOAD_ROUTES=0 loads each on its first request instead: a server started for a few
    // requests (the extra instances of the API tests) is up sooner.
    experimental: { preloadEntriesOnStart: process.env.GUICHET_PRELOAD_ROUTES !== "0" },
    // Parallel builds (several engineers or CI jobs in one checkout) each use their own folder.
    distDir: process.env.GUICHET_DIST_DIR ?? ".next",
    // Native and server-only packages stay out of the bundle.
    // OpenTelemetry and prom-client keep process-wide state: one copy, loaded by Node, for every route.
    serverExternalPackages: [
      "better-sqlite3",
      "@prisma/adapter-better-sqlite3",
      "pg",
      "ioredis",
      "@opentelemetry/api",
      "@opentelemetry/core",
      "@opentelemetry/exporter-trace-otlp-http",
      "@opentelemetry/resources",
      "@opentelemetry/sdk-trace-node",
      "prom-client",
    ],
    // `npm test` type-checks the whole tree (tsc --noEmit) as its own step; the build need not repeat it.
    typescript: { ignoreBuildErrors: true },
    // Every page and every API answer, errors included (lib/http/security-headers.ts says why) — but
    // the widget's frame page and the console's widget preview page, which send their own
    // frame-ancestors (app/widget/frame/route.ts, lib/widgets/preview-page.ts).
    headers: async () => [{ source: "/((?!widget/frame$|widgets/[^/]+/apercu$).*)", headers }],
  };
}
