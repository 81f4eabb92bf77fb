"use client";

import { useQuery } from "@tanstack/react-query";
import { call } from "@/lib/client/call";
import {
  createMcpServerEndpoint,
  deleteMcpServerEndpoint,
  listMcpServersEndpoint,
  listMcpToolsEndpoint,
  syncMcpServerEndpoint,
  updateMcpServerEndpoint,
  updateMcpToolEndpoint,
  type McpServerCreateBody,
  type McpToolUpdateBody,
} from "@/lib/mcp/api";
import type { z } from "zod";

// Connectors' reads and writes; every key under ["mcp-servers"] is built here
// and holds one shape only.
export const mcpKeys = {
  all: ["mcp-servers"] as const,
  list: () => [...mcpKeys.all, "list"] as const,
  tools: (serverId: number) => [...mcpKeys.all, "detail", serverId, "tools"] as const,
};

export function useMcpServers() {
  return useQuery({
    queryKey: mcpKeys.list(),
    queryFn: ({ signal }) => call(listMcpServersEndpoint, { signal }).then((page) => page.data),
  });
}

export function useMcpTools(serverId: number | undefined) {
  return useQuery({
    queryKey: mcpKeys.tools(serverId ?? 0),
    queryFn: ({ signal }) =>
      call(listMcpToolsEndpoint, { params: { server: String(serverId) }, signal }).then((page) => page.data),
    enabled: serverId !== undefined,
  });
}

export function createMcpServer(body: z.input<typeof McpServerCreateBody>) {
  return call(createMcpServerEndpoint, { body });
}

export function syncMcpServer(id: number) {
  return call(syncMcpServerEndpoint, { params: { server: String(id) } });
}

export function setMcpServerActive(id: number, active: boolean) {
  return call(updateMcpServerEndpoint, { params: { server: String(id) }, body: { active } });
}

export function deleteMcpServer(id: number) {
  return call(deleteMcpServerEndpoint, { params: { server: String(id) } });
}

export function updateMcpTool(serverId: number, tool: string, body: z.input<typeof McpToolUpdateBody>) {
  return call(updateMcpToolEndpoint, { params: { server: String(serverId), tool }, body });
}
