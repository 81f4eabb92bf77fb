// npm run setup -- --organization "Acme" --email owner@acme.example [--name "Camille Martin"]
// The first run without a browser: migrates, seeds the reference data (plans,
// models), then creates the instance's first organization and its owner (the
// instance owner). The password comes from GUICHET_SETUP_PASSWORD or standard
// input, never from the command line (it would sit in the shell history and in
// every process listing).
import { parseArgs } from "node:util";
import { spawnSync } from "node:child_process";

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

async function readPassword(): Promise<string> {
  const fromEnv = process.env.GUICHET_SETUP_PASSWORD;
  if (fromEnv) return fromEnv;
  if (process.stdin.isTTY) process.stderr.write("Owner's password (then Enter): ");
  let text = "";
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (process.stdin.isTTY && text.includes("\n")) break;
  }
  return text.split(/\r?\n/)[0] ?? "";
}

async function main() {
  let values: { organization?: string; email?: string; name?: string };
  try {
    ({ values } = parseArgs({
      options: { organization: { type: "string" }, email: { type: "string" }, name: { type: "string" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    if (process.argv.some((arg) => arg.startsWith("--password")))
      fail("The password is never an argument: set GUICHET_SETUP_PASSWORD or type it on standard input.");
    fail(`${(error as Error).message}. Usage: npm run setup -- --organization "…" --email … [--name "…"]`);
  }
  if (!values.organization || !values.email)
    fail(
      'Usage: npm run setup -- --organization "…" --email … [--name "…"] (password on standard input or GUICHET_SETUP_PASSWORD)',
    );
  const password = await readPassword();

  const migration = spawnSync(process.execPath, ["scripts/migrate.mjs"], { stdio: "inherit" });
  if (migration.status !== 0) process.exit(migration.status ?? 1);
  // Loaded after the migration: they open the database.
  const { seedReferenceData } = await import("@/lib/tenancy/seed");
  const { createFirstOrganization } = await import("@/lib/tenancy/organizations");
  const { SetupBody } = await import("@/lib/tenancy/schemas");
  const { ApiError } = await import("@/lib/http/errors");
  const { db } = await import("@/lib/db");
  try {
    await seedReferenceData();
    const parsed = SetupBody.safeParse({
      organization: values.organization,
      name: values.name ?? values.email.split("@")[0],
      email: values.email,
      password,
    });
    if (!parsed.success)
      fail(parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; "));
    const { organization, member } = await createFirstOrganization(parsed.data);
    console.log(
      `Created the organization "${organization.name}" (${organization.id}, plan ${organization.planId}) and its owner ${member.email}: sign in at the console.`,
    );
  } catch (error) {
    if (error instanceof ApiError) fail(`${error.code}: ${error.message}`);
    throw error;
  } finally {
    await db.$disconnect();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
