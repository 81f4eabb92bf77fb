"use client";

import { useQuery } from "@tanstack/react-query";
import type { z } from "zod";
import { call } from "@/lib/client/call";
import {
  deleteModelProviderEndpoint,
  listModelProvidersEndpoint,
  configureModelProviderEndpoint,
  testModelProviderEndpoint,
  type ModelProviderUpdateBody,
} from "@/lib/models/api";

// Model providers' reads and writes; every key under ["model-providers"] is built here.
export const providerKeys = {
  all: ["model-providers"] as const,
  list: () => [...providerKeys.all, "list"] as const,
};

export function useModelProviders() {
  return useQuery({
    queryKey: providerKeys.list(),
    queryFn: ({ signal }) => call(listModelProvidersEndpoint, { signal }).then((page) => page.data),
  });
}

export function saveModelProvider(provider: string, body: z.input<typeof ModelProviderUpdateBody>) {
  return call(configureModelProviderEndpoint, { params: { provider }, body });
}

export function removeModelProvider(provider: string) {
  return call(deleteModelProviderEndpoint, { params: { provider } });
}

export function testModelProvider(provider: string) {
  return call(testModelProviderEndpoint, { params: { provider } }).then((answer) => answer.data);
}
