"use client";

import { useQuery } from "@tanstack/react-query";
import { call } from "@/lib/client/call";
import { toolCallEndpoint, type ToolCallBody } from "@/lib/dispatch/api";
import {
  cancelRunEndpoint,
  createRunEndpoint,
  getRunEndpoint,
  listRunMessagesEndpoint,
  listRunsEndpoint,
  listStepsEndpoint,
  type RunCreateBody,
} from "@/lib/runs/api";
import { telemetryEndpoint } from "@/lib/telemetry/api";
import type { z } from "zod";

// The journal's reads and writes; every key under ["runs"] and ["telemetry"]
// is built here and holds one shape only.
export const runKeys = {
  all: ["runs"] as const,
  page: (cursor: string | undefined) => [...runKeys.all, "list", cursor ?? "first"] as const,
  detail: (id: string) => [...runKeys.all, "detail", id] as const,
  steps: (id: string) => [...runKeys.all, "detail", id, "steps"] as const,
  messages: (id: string) => [...runKeys.all, "detail", id, "messages"] as const,
};

export const telemetryKeys = {
  all: ["telemetry"] as const,
  hours: (hours: number) => [...telemetryKeys.all, hours] as const,
};

/** One page of runs, newest first: the journal pages with cursors rather than loading everything. */
export function useRunsPage(cursor: string | undefined) {
  return useQuery({
    queryKey: runKeys.page(cursor),
    queryFn: ({ signal }) => call(listRunsEndpoint, { query: { limit: 20, cursor }, signal }),
  });
}

export function useRun(id: string) {
  return useQuery({
    queryKey: runKeys.detail(id),
    queryFn: ({ signal }) => call(getRunEndpoint, { params: { run: id }, signal }).then((r) => r.data),
  });
}

export function useSteps(id: string) {
  return useQuery({
    queryKey: runKeys.steps(id),
    queryFn: ({ signal }) =>
      call(listStepsEndpoint, { params: { run: id }, query: { limit: 100 }, signal }).then((r) => r.data),
  });
}

/** A managed run's conversation with its model (empty for a client-driven run). */
export function useRunMessages(id: string, enabled: boolean) {
  return useQuery({
    queryKey: runKeys.messages(id),
    queryFn: ({ signal }) => call(listRunMessagesEndpoint, { params: { run: id }, signal }).then((r) => r.data),
    enabled,
  });
}

export function useTelemetry(hours = 24) {
  return useQuery({
    queryKey: telemetryKeys.hours(hours),
    queryFn: ({ signal }) => call(telemetryEndpoint, { query: { hours }, signal }).then((r) => r.data),
    refetchInterval: 30_000,
  });
}

export function createRun(body: z.input<typeof RunCreateBody>) {
  return call(createRunEndpoint, { body });
}

export function cancelRun(id: string) {
  return call(cancelRunEndpoint, { params: { run: id } });
}

/** A tool call as an agent makes it: the answer is the tool envelope, success or refusal. */
export function callTool(runId: string, body: ToolCallBody) {
  return call(toolCallEndpoint, { params: { run: runId }, body });
}
