"use client";

import { useQuery } from "@tanstack/react-query";
import {
  createAgentEndpoint,
  deleteAgentEndpoint,
  deleteDocumentEndpoint,
  listAgentsEndpoint,
  listDocumentsEndpoint,
  updateAgentEndpoint,
  uploadDocumentEndpoint,
  type AgentCreateBody,
  type AgentObject,
} from "@/lib/agents/api";
import { call, callAllPages, endpointUrl } from "@/lib/client/call";
import { ApiClientError, errorFromResponse } from "@/lib/client/errors";
import type { FileObject } from "@/lib/files/schemas";
import { listModelsEndpoint } from "@/lib/models/api";

export { useCatalog } from "@/components/catalog/queries";

// The agents' reads and writes: the same /v1 routes an API client uses. Every
// key under ["agents"] and ["models"] is built here and holds one shape only.
export const agentKeys = {
  all: ["agents"] as const,
  list: () => [...agentKeys.all, "list"] as const,
  detail: (id: string) => [...agentKeys.all, "detail", id] as const,
  documents: (id: string) => [...agentKeys.all, "detail", id, "documents"] as const,
};

export const modelKeys = { list: () => ["models", "list"] as const };

/** Every agent of the organization (a plan allows at most a few hundred). */
export function useAgents() {
  return useQuery({
    queryKey: agentKeys.list(),
    queryFn: ({ signal }) => callAllPages(listAgentsEndpoint, { signal }),
  });
}

export function useModels() {
  return useQuery({
    queryKey: modelKeys.list(),
    queryFn: ({ signal }) => call(listModelsEndpoint, { signal }).then((page) => page.data),
  });
}

export function useDocuments(agentId: string) {
  return useQuery({
    queryKey: agentKeys.documents(agentId),
    queryFn: ({ signal }) => callAllPages(listDocumentsEndpoint, { params: { agent: agentId }, signal }),
  });
}

export type AgentWrite = Partial<
  Omit<AgentObject, "id" | "unavailable_tools" | "created_at" | "updated_at" | "client_tools">
> & { client_tools?: unknown };

export function saveAgent(agentId: string | null, body: AgentWrite): Promise<{ data: AgentObject }> {
  // client_tools is whatever the person typed as JSON: the API's validation answers field by field.
  const sent = body as AgentCreateBody;
  return agentId
    ? call(updateAgentEndpoint, { params: { agent: agentId }, body: sent })
    : call(createAgentEndpoint, { body: sent });
}

export function deleteAgent(agentId: string) {
  return call(deleteAgentEndpoint, { params: { agent: agentId } });
}

export function deleteDocument(agentId: string, fileId: string) {
  return call(deleteDocumentEndpoint, { params: { agent: agentId, file: fileId } });
}

/**
 * Uploads a document with XMLHttpRequest, the one browser API that reports
 * upload progress; failures become the same ApiClientError as call()'s.
 */
export function uploadDocument(
  agentId: string,
  file: File,
  onProgress: (fraction: number) => void,
): { promise: Promise<FileObject>; abort: () => void } {
  const request = new XMLHttpRequest();
  const promise = new Promise<FileObject>((resolve, reject) => {
    request.open(uploadDocumentEndpoint.method, endpointUrl(uploadDocumentEndpoint, { agent: agentId }));
    request.setRequestHeader("accept", "application/json");
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onload = () => {
      let payload: unknown = null;
      try {
        payload = JSON.parse(request.responseText);
      } catch {
        // not JSON: reported below
      }
      const data = (payload as { data?: FileObject } | null)?.data;
      if (request.status === 201 && data) return resolve(data);
      reject(errorFromResponse(request.status, payload));
    };
    request.onerror = () => reject(new ApiClientError(0, "network_error", "La connexion a été interrompue."));
    request.onabort = () => reject(new ApiClientError(0, "aborted", "Envoi annulé."));
    const body = new FormData();
    body.append("file", file);
    request.send(body);
  });
  return { promise, abort: () => request.abort() };
}
