import { mkdirSync } from "node:fs";
import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";

// The JS engine: Prisma 6.19 then needs no downloaded schema engine (see ENV notes).
export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: path.join(__dirname, "schema.prisma"),
  async adapter() {
    // The CLI needs a database handle even for schema-to-schema diffs; on a fresh clone ./data does not exist yet.
    mkdirSync("data", { recursive: true });
    const url = process.env.DATABASE_URL?.startsWith("file:")
      ? process.env.DATABASE_URL
      : "file:./data/prisma-cli.sqlite";
    return new PrismaBetterSQLite3({ url });
  },
});
