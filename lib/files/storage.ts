import { randomBytes } from "node:crypto";
import { mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { env } from "@/lib/env";

// Bytes live on local disk under the data directory:
//   <GUICHET_DATA_DIR>/files/<organization id>/<file id>   stored files
//   <GUICHET_DATA_DIR>/files/tmp/<random>.part              uploads in progress
// The database row holds the key (path relative to the data directory), size and SHA-256.

const FILES_DIR = "files";

export function storageKeyFor(organizationId: string, fileId: string): string {
  return `${FILES_DIR}/${organizationId}/${fileId}`;
}

/** The absolute path of a stored key; a key that would leave the files folder is refused. */
export function storagePath(key: string): string {
  const root = path.join(env.dataDir, FILES_DIR);
  const resolved = path.resolve(env.dataDir, key);
  if (!resolved.startsWith(root + path.sep)) throw new Error("storage key outside the files folder");
  return resolved;
}

/** A fresh path for an upload in progress, on the same disk as the final place (so rename is atomic). */
export async function newTempPath(): Promise<string> {
  const dir = path.join(env.dataDir, FILES_DIR, "tmp");
  await mkdir(dir, { recursive: true });
  return path.join(dir, `${randomBytes(12).toString("hex")}.part`);
}

/** Moves a finished upload to its stored place. */
export async function commitTempFile(tempPath: string, key: string): Promise<void> {
  const target = storagePath(key);
  await mkdir(path.dirname(target), { recursive: true });
  await rename(tempPath, target);
}

/** Removes stored bytes; a missing file is not an error, other failures are logged and skipped. */
export async function removeStoredBytes(keys: string[]): Promise<void> {
  await Promise.all(
    keys.map(async (key) => {
      try {
        await rm(storagePath(key), { force: true });
      } catch (error) {
        console.error(
          JSON.stringify({
            level: "error",
            msg: "could not remove stored file",
            key,
            error: error instanceof Error ? error.message : String(error),
          }),
        );
      }
    }),
  );
}
