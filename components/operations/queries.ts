"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/lib/client/api";
import { queryKeys } from "@/lib/client/query-keys";
import type { OperationObject } from "@/lib/operations/api";

interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export function useUnknownOperations() {
  return useQuery({
    queryKey: queryKeys.operations.unknown,
    queryFn: ({ signal }) => apiFetch<Page<OperationObject>>("/v1/operations?status=unknown&limit=100", { signal }).then((p) => p.data),
    refetchInterval: 5_000,
  });
}

export function useRecentOperations() {
  return useQuery({
    queryKey: queryKeys.operations.recent,
    queryFn: ({ signal }) => apiFetch<Page<OperationObject>>("/v1/operations?limit=30", { signal }).then((p) => p.data),
    refetchInterval: 10_000,
  });
}

export function useResolve(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { outcome: "succeeded" | "failed"; reason: string }) => apiFetch<{ data: OperationObject }>(`/v1/operations/${id}/resolve`, { method: "POST", json: body }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.operations.all });
      void client.invalidateQueries({ queryKey: queryKeys.proposals.all });
    },
  });
}

export function useCancel() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiFetch<{ data: OperationObject; outcome: "stopped" | "already_finished" | "not_interruptible" }>(`/v1/operations/${id}/cancel`, { method: "POST" }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.operations.all }),
  });
}
