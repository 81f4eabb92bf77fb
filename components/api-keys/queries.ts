"use client";

import { useQuery } from "@tanstack/react-query";
import {
  createApiKeyEndpoint,
  listApiKeysEndpoint,
  revokeApiKeyEndpoint,
  type ApiKeyCreateBody,
} from "@/lib/api-keys/api";
import { call } from "@/lib/client/call";

// API keys' reads and writes; every key under ["api-keys"] is built here.
export const apiKeyKeys = {
  all: ["api-keys"] as const,
  list: () => [...apiKeyKeys.all, "list"] as const,
};

export function useApiKeys() {
  return useQuery({
    queryKey: apiKeyKeys.list(),
    queryFn: ({ signal }) => call(listApiKeysEndpoint, { signal }).then((page) => page.data),
  });
}

/** The answer carries the secret, shown once. */
export function createApiKey(body: ApiKeyCreateBody) {
  return call(createApiKeyEndpoint, { body }).then((r) => r.data);
}

export function revokeApiKey(id: string) {
  return call(revokeApiKeyEndpoint, { params: { key: id } });
}
