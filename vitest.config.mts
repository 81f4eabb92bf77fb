import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Unit tests: pure logic and in-process components, next to the code they test.
export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL("./", import.meta.url)) } },
  test: {
    include: ["lib/**/*.test.ts", "connectors/**/*.test.ts", "scripts/**/*.test.ts", "prisma/**/*.test.ts"],
    env: { NEXTAUTH_SECRET: "unit-tests-secret-not-used-for-real" },
    environment: "node",
    testTimeout: 20_000,
  },
});
