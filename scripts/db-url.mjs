// The database URL every script and the app agree on: DATABASE_URL, or the
// embedded SQLite file under ./data when it is unset.
import path from "node:path";
import { mkdirSync } from "node:fs";

export function databaseUrl() {
  const url = process.env.DATABASE_URL;
  if (url) return url;
  const dir = path.resolve(process.env.GUICHET_DATA_DIR ?? "data");
  mkdirSync(dir, { recursive: true });
  return `file:${path.join(dir, "guichet.sqlite")}`;
}

export function providerOf(url) {
  if (url.startsWith("file:")) return "sqlite";
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) return "postgresql";
  throw new Error(`DATABASE_URL must start with file: or postgresql:// (got ${url.split(":")[0]}:)`);
}
