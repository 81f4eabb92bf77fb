"use client";

import { useQuery } from "@tanstack/react-query";
import { call } from "@/lib/client/call";
import {
  getMyPreferencesEndpoint,
  updateMyPreferencesEndpoint,
  type PreferencesUpdateBody,
} from "@/lib/preferences/api";

// The signed-in member's preferences; every key under ["preferences"] is built here.
export const preferenceKeys = {
  all: ["preferences"] as const,
  mine: () => [...preferenceKeys.all, "me"] as const,
};

export function useMyPreferences() {
  return useQuery({
    queryKey: preferenceKeys.mine(),
    queryFn: ({ signal }) => call(getMyPreferencesEndpoint, { signal }).then((answer) => answer.data),
  });
}

export function updateMyPreferences(body: PreferencesUpdateBody) {
  return call(updateMyPreferencesEndpoint, { body }).then((answer) => answer.data);
}
