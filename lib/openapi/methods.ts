import type { HttpMethod } from "@/lib/http/endpoint";
import { endpoints } from "./endpoints";

// Path patterns of every /v1 endpoint with the methods they answer, for the 405s.
const table = new Map<string, { pattern: RegExp; methods: Set<HttpMethod> }>();
for (const endpoint of endpoints) {
  const source = "^" + endpoint.path.replace(/\{[^}]+\}/g, "[^/]+") + "/?$";
  const row = table.get(source) ?? { pattern: new RegExp(source), methods: new Set<HttpMethod>() };
  row.methods.add(endpoint.method);
  table.set(source, row);
}

/** The methods a known path answers, or null when no endpoint has that path. */
export function allowedMethods(pathname: string): HttpMethod[] | null {
  for (const { pattern, methods } of table.values()) if (pattern.test(pathname)) return [...methods];
  return null;
}
