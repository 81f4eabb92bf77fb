import { z } from "zod";
import { defineEndpoint, definePublicRoute } from "@/lib/http/endpoint";
import {
  OrganizationCreateBody,
  OrganizationObject,
  OrganizationParams,
  OrganizationUpdateBody,
  SetupBody,
} from "./schemas";

// /v1/organizations: the instance owner's (the first run's owner), in the console.
// Any other member is 403, whatever their role in their own organization.

export * from "./schemas";

export const listOrganizationsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/organizations",
  tag: "Organizations",
  summary: "Every organization of the instance with its plan (instance owner only)",
  auth: "session",
  response: z.object({ data: z.array(OrganizationObject), next_cursor: z.null() }),
  errors: ["forbidden"],
});

export const createOrganizationEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/organizations",
  tag: "Organizations",
  summary: "Create an organization with its plan and its owner (instance owner only)",
  auth: "session",
  body: OrganizationCreateBody,
  status: 201,
  response: z.object({ data: OrganizationObject }),
  errors: ["forbidden", "email_taken"],
});

export const updateOrganizationEndpoint = defineEndpoint({
  method: "PATCH",
  path: "/v1/organizations/{organization}",
  tag: "Organizations",
  summary: "Assign an organization's plan (instance owner only)",
  auth: "session",
  params: OrganizationParams,
  body: OrganizationUpdateBody,
  response: z.object({ data: OrganizationObject }),
  errors: ["forbidden", "not_found"],
});

// « Créer votre organisation », before anyone can sign in (app/api/setup/route.ts).
export const setupRoute = definePublicRoute({
  method: "POST",
  path: "/api/setup",
  body: SetupBody,
  response: z.object({
    data: z.object({
      organization: z.object({ id: z.string(), name: z.string(), slug: z.string(), plan: z.string() }),
      owner: z.object({ id: z.string(), email: z.string(), instance_owner: z.boolean() }),
    }),
  }),
});
