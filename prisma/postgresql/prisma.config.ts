import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";

// The JS engine: Prisma 6.19 then needs no downloaded schema engine (see ENV notes).
export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: path.join(__dirname, "schema.prisma"),
  async adapter() {
    const url = process.env.DATABASE_URL?.startsWith("postgres")
      ? process.env.DATABASE_URL
      : "postgresql://postgres@127.0.0.1:5432/postgres";
    return new PrismaPg({ connectionString: url });
  },
});
