import { randomFillSync } from "node:crypto";
import { ulid } from "ulid";

// ulid's own generator asks the system for one byte at a time (16 calls per id, and
// every request gets a request id); the same secure bytes drawn 4 KiB at a time.
// Each byte is used once, and byte / 256 is exactly what ulid's generator returns.
const pool = Buffer.allocUnsafe(4096);
let used = pool.length;
function secureFraction(): number {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return pool[used++] / 256;
}

export type IdPrefix =
  | "org"
  | "mem"
  | "key"
  | "agt"
  | "file"
  | "run"
  | "step"
  | "prop"
  | "op"
  | "mdl"
  | "db"
  | "req"
  | "ses"
  | "job"
  | "trc"
  | "whe"
  | "evt"
  | "msg"
  | "aud"
  | "inv"
  | "shp"
  | "shd"
  | "pev"
  | "ocl"
  | "ogr"
  | "wdg"
  | "wcv"
  | "wmsg"
  | "mcn";

/** A prefixed id: `agt_` + 26-char lowercase ULID. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid(undefined, secureFraction).toLowerCase()}`;
}

/** Tells whether a path segment can be an id of that kind (cheap check before a query). */
export function looksLikeId(prefix: IdPrefix, value: string): boolean {
  return new RegExp(`^${prefix}_[0-9a-z]{26}$`).test(value);
}
