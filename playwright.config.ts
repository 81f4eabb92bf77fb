import { defineConfig } from "@playwright/test";

const port = Number(process.env.STACK_PORT ?? 3210);
export const stackFile = process.env.STACK_FILE ?? `test-results/stack-${port}.json`;

// Debian's Chromium (never a downloaded browser); the networking flags keep it
// from flooding the closed network with refused connections.
export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results/playwright",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    locale: "fr-FR",
    timezoneId: "Europe/Paris",
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  projects: [
    { name: "setup", testMatch: /auth\.setup\.ts/ },
    {
      name: "chromium",
      testMatch: /.*\.spec\.ts/,
      dependencies: ["setup"],
      use: { browserName: "chromium", viewport: { width: 1366, height: 900 } },
    },
  ],
  webServer: {
    command: "node node_modules/tsx/dist/cli.mjs scripts/test-stack.ts",
    url: `http://127.0.0.1:${port}/api/health`,
    env: { STACK_PORT: String(port), STACK_FILE: stackFile },
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
  },
});
