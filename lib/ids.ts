import { ulid } from "ulid";

export type IdPrefix = "org" | "mem" | "key" | "agt" | "file" | "run" | "step" | "prop" | "op" | "mdl" | "db" | "req";

/** A prefixed id: `agt_` + 26-char lowercase ULID. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}

/** Tells whether a path segment can be an id of that kind (cheap check before a query). */
export function looksLikeId(prefix: IdPrefix, value: string): boolean {
  return new RegExp(`^${prefix}_[0-9a-z]{26}$`).test(value);
}
