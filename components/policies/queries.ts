"use client";

import { useQuery } from "@tanstack/react-query";
import { call } from "@/lib/client/call";
import { getPolicyEndpoint, listPolicyVersionsEndpoint, putPolicyEndpoint } from "@/lib/policies/api";
import type { PolicyPutBody } from "@/lib/policies/schemas";
import type { z } from "zod";

// The policy table's reads and its publication; every key under ["policies"] is built here.
export const policyKeys = {
  all: ["policies"] as const,
  current: () => [...policyKeys.all, "current"] as const,
  versions: () => [...policyKeys.all, "versions"] as const,
};

export function usePolicy() {
  return useQuery({
    queryKey: policyKeys.current(),
    queryFn: ({ signal }) => call(getPolicyEndpoint, { signal }).then((r) => r.data),
  });
}

export function usePolicyVersions() {
  return useQuery({
    queryKey: policyKeys.versions(),
    queryFn: ({ signal }) => call(listPolicyVersionsEndpoint, { query: { limit: 50 }, signal }).then((r) => r.data),
  });
}

/** `rules` is the JSON the person typed: the server validates every row and answers field by field. */
export function publishPolicy(body: { rules: unknown; base_version: number }) {
  return call(putPolicyEndpoint, { body: body as z.input<typeof PolicyPutBody> });
}
