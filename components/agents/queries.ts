"use client";

import { useQuery } from "@tanstack/react-query";
import type { CatalogEntry } from "@/components/catalog/labels";
import type { AgentObject } from "@/lib/agents/api";
import { ApiClientError, apiFetch, type ApiFieldError } from "@/lib/client/api";
import { queryKeys } from "@/lib/client/query-keys";
import type { FileObject } from "@/lib/files/api";
import type { ModelObject } from "@/lib/models/api";

// The drawer's reads and writes: the same /v1 routes an API client uses.

interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** Every agent of the organization (a plan allows at most a few hundred): follows the cursors. */
async function allAgents(signal: AbortSignal): Promise<AgentObject[]> {
  const agents: AgentObject[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<AgentObject> = await apiFetch(`/v1/agents?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { signal });
    agents.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return agents;
}

export function useAgents() {
  return useQuery({ queryKey: queryKeys.agents.all, queryFn: ({ signal }) => allAgents(signal) });
}

export function useCatalog() {
  return useQuery({ queryKey: queryKeys.tools.all, queryFn: ({ signal }) => apiFetch<Page<CatalogEntry>>("/v1/tools", { signal }).then((page) => page.data) });
}

export function useModels() {
  return useQuery({ queryKey: queryKeys.models.all, queryFn: ({ signal }) => apiFetch<Page<ModelObject>>("/v1/models", { signal }).then((page) => page.data) });
}

export function useDocuments(agentId: string) {
  return useQuery({
    queryKey: queryKeys.agents.documents(agentId),
    queryFn: ({ signal }) => apiFetch<Page<FileObject>>(`/v1/agents/${agentId}/documents?limit=100`, { signal }).then((page) => page.data),
  });
}

export type AgentWrite = Partial<Omit<AgentObject, "id" | "unavailable_tools" | "created_at" | "updated_at" | "client_tools">> & { client_tools?: unknown };

export function saveAgent(agentId: string | null, body: AgentWrite): Promise<{ data: AgentObject }> {
  return agentId ? apiFetch(`/v1/agents/${agentId}`, { method: "PATCH", json: body }) : apiFetch("/v1/agents", { method: "POST", json: body });
}

export function deleteAgent(agentId: string) {
  return apiFetch(`/v1/agents/${agentId}`, { method: "DELETE" });
}

export function deleteDocument(agentId: string, fileId: string) {
  return apiFetch(`/v1/agents/${agentId}/documents/${fileId}`, { method: "DELETE" });
}

/**
 * Uploads a document with XMLHttpRequest, the one browser API that reports
 * upload progress; failures become the same ApiClientError as apiFetch's.
 */
export function uploadDocument(agentId: string, file: File, onProgress: (fraction: number) => void): { promise: Promise<FileObject>; abort: () => void } {
  const request = new XMLHttpRequest();
  const promise = new Promise<FileObject>((resolve, reject) => {
    request.open("POST", `/v1/agents/${agentId}/documents`);
    request.setRequestHeader("accept", "application/json");
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onload = () => {
      let payload: { data?: FileObject; error?: { code: string; message: string; errors?: ApiFieldError[]; reason?: Record<string, unknown>; request_id?: string } } | null = null;
      try {
        payload = JSON.parse(request.responseText);
      } catch {
        // not JSON: reported below
      }
      if (request.status === 201 && payload?.data) return resolve(payload.data);
      const error = payload?.error;
      reject(new ApiClientError(request.status, error?.code ?? "internal_error", error?.message ?? `HTTP ${request.status}`, error?.errors ?? [], error?.reason, error?.request_id));
    };
    request.onerror = () => reject(new ApiClientError(0, "network_error", "La connexion a été interrompue."));
    request.onabort = () => reject(new ApiClientError(0, "aborted", "Envoi annulé."));
    const body = new FormData();
    body.append("file", file);
    request.send(body);
  });
  return { promise, abort: () => request.abort() };
}
