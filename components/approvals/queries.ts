"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { call } from "@/lib/client/call";
import {
  approveProposalEndpoint,
  countProposalsEndpoint,
  decideProposalsEndpoint,
  getProposalEndpoint,
  listProposalsEndpoint,
  refuseProposalEndpoint,
  reviseProposalEndpoint,
  getProposalRevisionFormEndpoint,
} from "@/lib/proposals/api";

// The approval screens read and decide through the same /v1 routes as any
// client. Lists refresh on their own: a new proposal appears without reload.
// Every key under ["proposals"] is built here and holds one shape only.

export const LIVE_REFRESH_MS = 3_000;

export const proposalKeys = {
  all: ["proposals"] as const,
  pending: () => [...proposalKeys.all, "list", "pending"] as const,
  recent: () => [...proposalKeys.all, "list", "recent"] as const,
  count: () => [...proposalKeys.all, "count"] as const,
  detail: (id: string) => [...proposalKeys.all, "detail", id] as const,
  revisionForm: (id: string) => [...proposalKeys.all, "revision-form", id] as const,
};

export function usePendingProposals() {
  return useQuery({
    queryKey: proposalKeys.pending(),
    queryFn: ({ signal }) =>
      call(listProposalsEndpoint, { query: { status: "pending", order: "expires_at", limit: 100 }, signal }),
    refetchInterval: LIVE_REFRESH_MS,
  });
}

export function useRecentProposals() {
  return useQuery({
    queryKey: proposalKeys.recent(),
    queryFn: ({ signal }) =>
      call(listProposalsEndpoint, {
        query: { status: "approved,refused,expired,superseded,revised,consumed", limit: 20 },
        signal,
      }),
    refetchInterval: LIVE_REFRESH_MS * 3,
  });
}

export function usePendingCount() {
  return useQuery({
    queryKey: proposalKeys.count(),
    queryFn: ({ signal }) => call(countProposalsEndpoint, { signal }).then((r) => r.data.pending),
    refetchInterval: LIVE_REFRESH_MS * 2,
  });
}

export function useProposal(id: string) {
  return useQuery({
    queryKey: proposalKeys.detail(id),
    queryFn: ({ signal }) => call(getProposalEndpoint, { params: { proposal: id }, signal }).then((r) => r.data),
    refetchInterval: LIVE_REFRESH_MS,
  });
}

export type DecisionInput =
  { kind: "approve"; argumentsSha256: string } | { kind: "refuse"; reason: string; shareReason?: boolean };

export function useDecide(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: DecisionInput) =>
      input.kind === "approve"
        ? call(approveProposalEndpoint, { params: { proposal: id }, body: { arguments_sha256: input.argumentsSha256 } })
        : call(refuseProposalEndpoint, {
            params: { proposal: id },
            body: { reason: input.reason, ...(input.shareReason ? { share_reason_with_requester: true } : {}) },
          }),
    onSuccess: ({ data }) => {
      client.setQueryData(proposalKeys.detail(id), data);
      void client.invalidateQueries({ queryKey: proposalKeys.all });
    },
  });
}

/** What « Modifier avant d'approuver » edits: the schema and the current arguments (read once the form opens). */
export function useRevisionForm(id: string, enabled: boolean) {
  return useQuery({
    queryKey: proposalKeys.revisionForm(id),
    queryFn: ({ signal }) =>
      call(getProposalRevisionFormEndpoint, { params: { proposal: id }, signal }).then((r) => r.data),
    enabled,
    staleTime: Infinity,
  });
}

export function useRevise(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (args: Record<string, unknown>) =>
      call(reviseProposalEndpoint, { params: { proposal: id }, body: { arguments: args } }),
    onSuccess: ({ data }) => {
      client.setQueryData(proposalKeys.detail(data.id), data);
      void client.invalidateQueries({ queryKey: proposalKeys.all });
    },
  });
}

export type BatchItem =
  { proposal: string; decision: "approve"; arguments_sha256: string } | { proposal: string; decision: "refuse" };

/** Several decisions in one request; each line answers for its proposal. */
export function useDecideMany() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { decisions: BatchItem[]; reason?: string }) =>
      call(decideProposalsEndpoint, { body: input }).then((r) => r.data),
    onSuccess: () => void client.invalidateQueries({ queryKey: proposalKeys.all }),
  });
}
