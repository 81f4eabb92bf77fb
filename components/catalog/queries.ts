"use client";

import { useQuery } from "@tanstack/react-query";
import { getToolEndpoint, listToolsEndpoint } from "@/lib/catalog/api";
import { call } from "@/lib/client/call";
import { getContractEndpoint } from "@/lib/contracts/api";

// The catalog's reads. Every key under ["tools"] is built here and holds one
// shape only, whichever page asks for it.
export const toolKeys = {
  all: ["tools"] as const,
  list: () => [...toolKeys.all, "list"] as const,
  detail: (key: string) => [...toolKeys.all, "detail", key] as const,
  contract: (key: string, version: number | null) => [...toolKeys.all, "contract", key, version ?? "current"] as const,
};

/** Every catalog entry of the organization (the catalog is one page). */
export function useCatalog() {
  return useQuery({
    queryKey: toolKeys.list(),
    queryFn: ({ signal }) => call(listToolsEndpoint, { signal }).then((page) => page.data),
  });
}

export function useTool(key: string | undefined) {
  return useQuery({
    queryKey: toolKeys.detail(key ?? ""),
    queryFn: ({ signal }) => call(getToolEndpoint, { params: { key: key ?? "" }, signal }).then((r) => r.data),
    enabled: Boolean(key),
  });
}

/** A tool's contract: the current version, or the one a step ran with. */
export function useContract(key: string, version: number | null) {
  return useQuery({
    queryKey: toolKeys.contract(key, version),
    queryFn: ({ signal }) =>
      call(getContractEndpoint, { params: { key }, query: version ? { version } : {}, signal }).then((r) => r.data),
  });
}
