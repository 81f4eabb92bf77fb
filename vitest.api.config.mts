import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// API tests: real HTTP against the production build (`next start`) on a fresh
// database — SQLite by default, PostgreSQL with TEST_DB=postgresql.
export default defineConfig({
  // Services are marked `import "server-only"`: tests load them outside React's server build.
  resolve: {
    alias: {
      "@": fileURLToPath(new URL("./", import.meta.url)),
      "server-only": fileURLToPath(new URL("./node_modules/server-only/empty.js", import.meta.url)),
    },
  },
  test: {
    include: ["tests/api/**/*.test.ts"],
    globalSetup: ["tests/api/global-setup.ts"],
    setupFiles: ["tests/api/file-setup.ts"],
    environment: "node",
    fileParallelism: false,
    // One worker runs the files one after the other and keeps the modules they share (helpers, the Prisma
    // client, the MCP SDK) loaded: a fresh process per file cost about two seconds of imports each, more than
    // some files take. Files own their state: what a file starts or changes, it stops or resets itself.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
