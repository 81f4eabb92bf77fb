"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { proposalKeys } from "@/components/approvals/queries";
import { call } from "@/lib/client/call";
import { cancelOperationEndpoint, listOperationsEndpoint, resolveOperationEndpoint } from "@/lib/operations/api";

// Operations' reads and the operator's actions; every key under ["operations"] is built here.
export const operationKeys = {
  all: ["operations"] as const,
  unknown: () => [...operationKeys.all, "list", "unknown"] as const,
  recent: () => [...operationKeys.all, "list", "recent"] as const,
};

export function useUnknownOperations() {
  return useQuery({
    queryKey: operationKeys.unknown(),
    queryFn: ({ signal }) =>
      call(listOperationsEndpoint, { query: { status: "unknown", limit: 100 }, signal }).then((p) => p.data),
    refetchInterval: 5_000,
  });
}

export function useRecentOperations() {
  return useQuery({
    queryKey: operationKeys.recent(),
    queryFn: ({ signal }) => call(listOperationsEndpoint, { query: { limit: 30 }, signal }).then((p) => p.data),
    refetchInterval: 10_000,
  });
}

export function useResolve(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { outcome: "succeeded" | "failed"; reason: string }) =>
      call(resolveOperationEndpoint, { params: { operation: id }, body }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: operationKeys.all });
      void client.invalidateQueries({ queryKey: proposalKeys.all });
    },
  });
}

export function useCancel() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call(cancelOperationEndpoint, { params: { operation: id } }),
    onSuccess: () => void client.invalidateQueries({ queryKey: operationKeys.all }),
  });
}
