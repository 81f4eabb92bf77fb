"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/lib/client/api";
import { queryKeys } from "@/lib/client/query-keys";
import type { ProposalObject } from "@/lib/proposals/api";

// The approval screens read and decide through the same /v1 routes as any
// client. Lists refresh on their own: a new proposal appears without reload.

export const LIVE_REFRESH_MS = 3_000;

interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export function usePendingProposals() {
  return useQuery({
    queryKey: queryKeys.proposals.pending,
    queryFn: ({ signal }) => apiFetch<Page<ProposalObject>>("/v1/proposals?status=pending&order=expires_at&limit=100", { signal }),
    refetchInterval: LIVE_REFRESH_MS,
  });
}

export function useRecentProposals() {
  return useQuery({
    queryKey: queryKeys.proposals.recent,
    queryFn: ({ signal }) => apiFetch<Page<ProposalObject>>("/v1/proposals?status=approved,refused,expired,superseded,consumed&limit=20", { signal }),
    refetchInterval: LIVE_REFRESH_MS * 3,
  });
}

export function usePendingCount() {
  return useQuery({
    queryKey: queryKeys.proposals.count,
    queryFn: ({ signal }) => apiFetch<{ data: { pending: number } }>("/v1/proposals/counts", { signal }).then((r) => r.data.pending),
    refetchInterval: LIVE_REFRESH_MS * 2,
  });
}

export function useProposal(id: string) {
  return useQuery({
    queryKey: queryKeys.proposals.detail(id),
    queryFn: ({ signal }) => apiFetch<{ data: ProposalObject }>(`/v1/proposals/${encodeURIComponent(id)}`, { signal }).then((r) => r.data),
    refetchInterval: LIVE_REFRESH_MS,
  });
}

export type DecisionInput = { kind: "approve"; argumentsSha256: string } | { kind: "refuse"; reason: string };

export function useDecide(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: DecisionInput) =>
      apiFetch<{ data: ProposalObject }>(`/v1/proposals/${encodeURIComponent(id)}/${input.kind}`, {
        method: "POST",
        json: input.kind === "approve" ? { arguments_sha256: input.argumentsSha256 } : { reason: input.reason },
      }),
    onSuccess: ({ data }) => {
      client.setQueryData(queryKeys.proposals.detail(id), data);
      void client.invalidateQueries({ queryKey: queryKeys.proposals.all });
    },
  });
}
