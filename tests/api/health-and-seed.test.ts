import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { crmUrl, dataDir, testDb } from "./helpers";
import { freePort, run } from "./server";

it("answers health 503 when the database is unreachable", async () => {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"],
    {
      env: {
        ...process.env,
        NODE_ENV: "production",
        DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/guichet_no_such_database",
        NEXT_TELEMETRY_DISABLED: "1",
      },
      stdio: "ignore",
    },
  );
  try {
    let status = 0;
    for (let attempt = 0; attempt < 300 && status === 0; attempt++) {
      status = await fetch(`http://127.0.0.1:${port}/api/health`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(503);
  } finally {
    child.kill("SIGTERM");
  }
});

it("seeds idempotently: a second run changes nothing and keeps the demo key", async () => {
  const db = await testDb();
  const count = async () => ({
    organizations: await db.organization.count(),
    members: await db.member.count(),
    apiKeys: await db.apiKey.count(),
    plans: await db.plan.count(),
    models: await db.model.count(),
  });
  const keyFile = path.join(dataDir, "demo-api-key");
  const before = { rows: await count(), key: readFileSync(keyFile, "utf8") };
  // This suite's database holds the other files' tenants: the demo seed runs over them only when told so.
  const seed = ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "prisma/seed.ts"];
  await run(process.execPath, [...seed, "--alongside-real-organizations"], {
    ...process.env,
    GUICHET_DATA_DIR: dataDir,
    GUICHET_DEMO_CRM_URL: crmUrl,
  });
  expect(await count()).toEqual(before.rows);
  expect(readFileSync(keyFile, "utf8")).toBe(before.key);
  const acme = await db.organization.findUniqueOrThrow({ where: { slug: "acme" } });
  expect(acme.planId).toBe("pro");
  expect((await db.organization.findUniqueOrThrow({ where: { slug: "globex" } })).planId).toBe("free");
});
