"use client";

import { useQuery } from "@tanstack/react-query";
import { call } from "@/lib/client/call";
import {
  deleteOAuthClientEndpoint,
  listOAuthClientsEndpoint,
  listOAuthGrantsEndpoint,
  revokeOAuthGrantEndpoint,
} from "@/lib/oauth/api";

// Connected applications' reads and writes; every key under ["connected-apps"] is built here.
export const connectedAppKeys = {
  all: ["connected-apps"] as const,
  grants: () => [...connectedAppKeys.all, "grants"] as const,
  clients: () => [...connectedAppKeys.all, "clients"] as const,
};

export function useGrants() {
  return useQuery({
    queryKey: connectedAppKeys.grants(),
    queryFn: ({ signal }) => call(listOAuthGrantsEndpoint, { signal }).then((page) => page.data),
  });
}

export function useClients(enabled: boolean) {
  return useQuery({
    queryKey: connectedAppKeys.clients(),
    queryFn: ({ signal }) => call(listOAuthClientsEndpoint, { signal }).then((page) => page.data),
    enabled,
  });
}

export function revokeGrant(id: string) {
  return call(revokeOAuthGrantEndpoint, { params: { grant: id } });
}

export function deleteClient(id: string) {
  return call(deleteOAuthClientEndpoint, { params: { client: id } });
}
