"use client";

import { useQuery } from "@tanstack/react-query";
import { call } from "@/lib/client/call";
import {
  deleteShadowPolicyEndpoint,
  getPolicyEndpoint,
  getShadowPolicyEndpoint,
  listPolicyVersionsEndpoint,
  listShadowDifferencesEndpoint,
  promoteShadowPolicyEndpoint,
  putPolicyEndpoint,
  putShadowPolicyEndpoint,
  simulatePolicyEndpoint,
} from "@/lib/policies/api";
import type { PolicyPutBody, PolicySimulateBody, ShadowPolicyBody } from "@/lib/policies/schemas";
import type { z } from "zod";
import { LIVE_REFRESH_MS } from "@/components/approvals/queries";

// The policy table's reads and its publication; every key under ["policies"] is built here.
export const policyKeys = {
  all: ["policies"] as const,
  current: () => [...policyKeys.all, "current"] as const,
  versions: () => [...policyKeys.all, "versions"] as const,
  shadow: () => [...policyKeys.all, "shadow"] as const,
  shadowDifferences: () => [...policyKeys.all, "shadow", "differences"] as const,
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

/** A draft against the decisions recorded since `since`: the server validates the rows as publishing would. */
export function simulatePolicy(body: { rules: unknown; since: string }) {
  return call(simulatePolicyEndpoint, { body: body as z.input<typeof PolicySimulateBody> });
}

export function useShadowPolicy() {
  return useQuery({
    queryKey: policyKeys.shadow(),
    queryFn: ({ signal }) => call(getShadowPolicyEndpoint, { signal }).then((r) => r.data),
  });
}

/**
 * The newest differences of the shadow table and their counts; only asked for while there is one. Live, like
 * the inbox: an admin watching a shadow table sees the calls it would have decided otherwise as they come.
 */
export function useShadowDifferences(enabled: boolean) {
  return useQuery({
    queryKey: policyKeys.shadowDifferences(),
    enabled,
    refetchInterval: LIVE_REFRESH_MS,
    queryFn: ({ signal }) => call(listShadowDifferencesEndpoint, { query: { limit: 20 }, signal }),
  });
}

export function publishShadow(body: { rules: unknown }) {
  return call(putShadowPolicyEndpoint, { body: body as z.input<typeof ShadowPolicyBody> });
}

export function promoteShadow(baseVersion: number) {
  return call(promoteShadowPolicyEndpoint, { body: { base_version: baseVersion } });
}

export function dropShadow() {
  return call(deleteShadowPolicyEndpoint, {});
}
