import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { PreferencesObject, PreferencesUpdateBody } from "./schemas";

export * from "./schemas";

// Every role: each member decides for themself, and only for themself.
const everyone = ["owner", "admin", "developer", "approver", "viewer"] as const;

export const getMyPreferencesEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/me/preferences",
  tag: "Preferences",
  summary: "The signed-in member's notification settings",
  auth: "session",
  roles: [...everyone],
  response: z.object({ data: PreferencesObject }),
});

export const updateMyPreferencesEndpoint = defineEndpoint({
  method: "PATCH",
  path: "/v1/me/preferences",
  tag: "Preferences",
  summary: "Turn the signed-in member's approval e-mails on or off",
  auth: "session",
  roles: [...everyone],
  body: PreferencesUpdateBody,
  response: z.object({ data: PreferencesObject }),
});
