import type { z } from "zod";
import type { Endpoint } from "@/lib/http/endpoint";
import { errorFromResponse, readPayload } from "./errors";

// The console's one way to reach /v1: the URL, the method and the answer's type
// all come from the endpoint's declaration (`lib/<domain>/api.ts`), the same
// object the route handler serves, so a component never spells a path or guesses
// a response shape.

type Params<E> = E extends { params?: infer P extends z.ZodType } ? z.input<P> : never;
type Query<E> = E extends { query?: infer Q extends z.ZodType } ? z.input<Q> : never;
type Body<E> = E extends { body?: infer B extends z.ZodType } ? z.input<B> : never;
export type ResponseOf<E> = E extends { response?: infer R extends z.ZodType } ? z.output<R> : never;

export interface CallInput<E> {
  params?: Params<E>;
  query?: Query<E>;
  body?: Body<E>;
  signal?: AbortSignal;
}

// Any endpoint, whatever its schemas (the parameters are only read back through the conditional types above),
// or a public route the console calls before anyone is signed in (lib/http/endpoint.ts, PublicRoute).
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- variance: Endpoint<P, Q, B, R> is invariant in its schemas
type AnyEndpoint = Pick<Endpoint<any, any, any, any>, "method" | "path" | "params" | "query" | "body" | "response">;

/** The path of an endpoint with its `{name}` segments filled in, plus the query string. */
export function endpointUrl(endpoint: Pick<Endpoint, "path">, params?: unknown, query?: unknown): string {
  const values = (params ?? {}) as Record<string, unknown>;
  const path = endpoint.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined || value === null || value === "")
      throw new Error(`${endpoint.path}: missing path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    search.set(key, Array.isArray(value) ? value.join(",") : String(value));
  }
  const queryString = search.toString();
  return queryString ? `${path}?${queryString}` : path;
}

/** Calls one /v1 endpoint with the session cookie; a refusal throws ApiClientError with the envelope's code and fields. */
export async function call<E extends AnyEndpoint>(endpoint: E, input: CallInput<E> = {}): Promise<ResponseOf<E>> {
  const hasBody = input.body !== undefined;
  const response = await fetch(endpointUrl(endpoint, input.params, input.query), {
    method: endpoint.method,
    headers: { accept: "application/json", ...(hasBody ? { "content-type": "application/json" } : {}) },
    body: hasBody ? JSON.stringify(input.body) : undefined,
    credentials: "same-origin",
    signal: input.signal,
  });
  const payload = await readPayload(response);
  if (!response.ok) throw errorFromResponse(response.status, payload);
  return payload as ResponseOf<E>;
}

type PageOf<T> = { data: T[]; next_cursor: string | null };
type ItemOf<E> = ResponseOf<E> extends PageOf<infer T> ? T : never;

/** Every item of a cursor list (lists the console shows whole are small: a plan allows a few hundred at most). */
export async function callAllPages<E extends AnyEndpoint>(endpoint: E, input: CallInput<E> = {}): Promise<ItemOf<E>[]> {
  const items: ItemOf<E>[] = [];
  let cursor: string | null = null;
  do {
    const query = { ...(input.query as object), limit: 100, ...(cursor ? { cursor } : {}) } as Query<E>;
    const page = (await call(endpoint, { ...input, query })) as PageOf<ItemOf<E>>;
    items.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}
