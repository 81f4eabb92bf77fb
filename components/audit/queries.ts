"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { exportAuditEventsEndpoint, listAuditEventsEndpoint } from "@/lib/audit/api";
import type { AuditAction } from "@/lib/audit/schemas";
import { call, endpointUrl } from "@/lib/client/call";

/** The filters as the page holds them (and its URL shows them): the API's query, dates as ISO strings. */
export interface AuditFilterValues {
  action?: AuditAction;
  actor?: string;
  target?: string;
  from?: string;
  to?: string;
}

// The audit trail's reads; every key under ["audit-events"] is built here.
export const auditKeys = {
  all: ["audit-events"] as const,
  /** Pages of events (an infinite query), per set of filters. */
  pages: (filters: AuditFilterValues) => [...auditKeys.all, "pages", filters] as const,
};

const PAGE = 50;

export function useAuditEvents(filters: AuditFilterValues) {
  return useInfiniteQuery({
    queryKey: auditKeys.pages(filters),
    queryFn: ({ pageParam, signal }) =>
      call(listAuditEventsEndpoint, { query: { ...filters, limit: PAGE, cursor: pageParam }, signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}

/** The CSV download of every event matching the filters (not only the pages loaded). */
export function auditExportUrl(filters: AuditFilterValues): string {
  return endpointUrl(exportAuditEventsEndpoint, undefined, filters);
}
