import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { env } from "@/lib/env";

// Connector tokens are encrypted at rest (AES-256-GCM) and never served. The key
// is GUICHET_ENCRYPTION_KEY, or for the quickstart a random key kept under the
// data directory (created on first use, mode 0600). Losing the key loses the
// stored tokens, not the connectors: they can be given a new token.

// v2: the ciphertext is bound to the origin the token was given for (AES-GCM
// additional data), so a token can only ever be decrypted for that origin: a URL
// changed by any path, even straight in the database, cannot receive it. v1
// (unbound) tokens are no longer read: their connectors need the token again.
const VERSION = "v2";

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

// The derived key, kept once read: without GUICHET_ENCRYPTION_KEY the material is a file, and every
// connector call with a token would otherwise read it from disk and hash it again.
let derived: Buffer | undefined;
function key(): Buffer {
  derived ??= createHash("sha256").update(keyMaterial()).digest();
  return derived;
}

/** Encrypts a connector token for exactly this origin (`https://crm.example.com:8443`). */
export function encryptSecret(plain: string, origin: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key(), iv);
  cipher.setAAD(Buffer.from(origin, "utf8"));
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [
    VERSION,
    iv.toString("base64url"),
    cipher.getAuthTag().toString("base64url"),
    data.toString("base64url"),
  ].join(".");
}

/** The token, only for the origin it was encrypted for; throws for any other origin, a changed key or a tampered value. */
export function decryptSecret(stored: string, origin: string): string {
  const [version, iv, tag, data] = stored.split(".");
  if (version !== VERSION || !iv || !tag || data === undefined) throw new Error("Unreadable stored secret.");
  const decipher = createDecipheriv("aes-256-gcm", key(), Buffer.from(iv, "base64url"));
  decipher.setAAD(Buffer.from(origin, "utf8"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
}

/** What a sealed credential is bound to beyond its origin: a connector, and the member whose own it is. */
export interface SecretBinding {
  serverId: number;
  /** The member whose credential this is; absent for the connector's own client secret. */
  memberId?: string;
}

// The origin stays first and whole, so a bound secret is never readable where an
// origin-only one is (and the reverse): the additional data differs.
function boundAad(origin: string, binding: SecretBinding): string {
  return `${origin}\nserver:${binding.serverId}${binding.memberId ? `\nmember:${binding.memberId}` : ""}`;
}

/** Encrypts a member's (or a connector's) credential for this origin, this connector and this member only. */
export function sealBoundSecret(plain: string, origin: string, binding: SecretBinding): string {
  return encryptSecret(plain, boundAad(origin, binding));
}

/** The credential, only for the origin, connector and member it was sealed for; throws otherwise. */
export function openBoundSecret(stored: string, origin: string, binding: SecretBinding): string {
  return decryptSecret(stored, boundAad(origin, binding));
}
