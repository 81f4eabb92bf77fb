"use client";

import { useQuery } from "@tanstack/react-query";
import { call } from "@/lib/client/call";
import {
  countMcpServerConnectionsEndpoint,
  deleteMcpServerConnectionsEndpoint,
  deleteMyConnectionEndpoint,
  listMyConnectionsEndpoint,
  replaceMyConnectionEndpoint,
} from "@/lib/connections/api";

// A member's connections to connectors that act as each member, and the counts
// administrators see per connector; every key under ["connections"] is built here.
export const connectionKeys = {
  all: ["connections"] as const,
  mine: () => [...connectionKeys.all, "me"] as const,
  counts: (server: number) => [...connectionKeys.all, "counts", server] as const,
};

export function useMyConnections() {
  return useQuery({
    queryKey: connectionKeys.mine(),
    queryFn: ({ signal }) => call(listMyConnectionsEndpoint, { signal }).then((answer) => answer.data),
  });
}

export function useConnectionCounts(server: number, enabled: boolean) {
  return useQuery({
    queryKey: connectionKeys.counts(server),
    queryFn: ({ signal }) =>
      call(countMcpServerConnectionsEndpoint, { params: { server: String(server) }, signal }).then(
        (answer) => answer.data,
      ),
    enabled,
  });
}

export function saveMyToken(server: number, token: string) {
  return call(replaceMyConnectionEndpoint, { params: { server: String(server) }, body: { token } }).then(
    (answer) => answer.data,
  );
}

export function disconnectMe(server: number) {
  return call(deleteMyConnectionEndpoint, { params: { server: String(server) } });
}

export function disconnectEveryone(server: number) {
  return call(deleteMcpServerConnectionsEndpoint, { params: { server: String(server) } });
}

/**
 * Where « Connecter » goes: the console's connect route for the server, coming back to `returnTo` (a path
 * of the console) once the upstream's sign-in is done. A full navigation, since it leaves for the upstream.
 */
export function connectHref(connectUrl: string, returnTo: string): string {
  const url = new URL(connectUrl, window.location.origin);
  url.searchParams.set("return_to", returnTo);
  return url.origin === window.location.origin ? `${url.pathname}${url.search}` : url.toString();
}
