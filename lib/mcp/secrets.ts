import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { env } from "@/lib/env";

// Connector tokens are encrypted at rest (AES-256-GCM) and never served. The key
// is GUICHET_ENCRYPTION_KEY, or for the quickstart a random key kept under the
// data directory (created on first use, mode 0600). Losing the key loses the
// stored tokens, not the connectors: they can be given a new token.

const VERSION = "v1";

function keyMaterial(): string {
  if (env.GUICHET_ENCRYPTION_KEY) return env.GUICHET_ENCRYPTION_KEY;
  const file = path.join(env.dataDir, "encryption-key");
  if (!existsSync(file)) {
    mkdirSync(env.dataDir, { recursive: true });
    // "wx": two processes racing here keep the first key, the loser reads it.
    try {
      writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  return readFileSync(file, "utf8").trim();
}

function key(): Buffer {
  return createHash("sha256").update(keyMaterial()).digest();
}

export function encryptSecret(plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key(), iv);
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [VERSION, iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), data.toString("base64url")].join(".");
}

export function decryptSecret(stored: string): string {
  const [version, iv, tag, data] = stored.split(".");
  if (version !== VERSION || !iv || !tag || data === undefined) throw new Error("Unreadable stored secret.");
  const decipher = createDecipheriv("aes-256-gcm", key(), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
}
