import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Unit tests: pure logic and in-process components, next to the code they test.
export default defineConfig({
  // Services are marked `import "server-only"`: tests load them outside React's server build.
  resolve: {
    alias: {
      "@": fileURLToPath(new URL("./", import.meta.url)),
      "server-only": fileURLToPath(new URL("./node_modules/server-only/empty.js", import.meta.url)),
    },
  },
  test: {
    include: ["lib/**/*.test.ts", "connectors/**/*.test.ts", "scripts/**/*.test.ts", "prisma/**/*.test.ts"],
    env: { NEXTAUTH_SECRET: "unit-tests-secret-not-used-for-real" },
    environment: "node",
    testTimeout: 20_000,
  },
});
