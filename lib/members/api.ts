import { MANAGER_ROLES } from "@/lib/auth/scopes";
import { z } from "zod";
import { defineEndpoint, definePublicRoute } from "@/lib/http/endpoint";
import {
  InvitationAcceptBody,
  InvitationCreateBody,
  InvitationObject,
  InvitationParams,
  MemberListQuery,
  MemberObject,
  MemberParams,
  MemberUpdateBody,
  PasswordChangeBody,
} from "./schemas";

export * from "./schemas";

// Members and invitations: owners and admins, signed in (never an API key, which
// developers can create too). Only an owner grants the owner role or changes an
// owner; the last owner stays.

export const listMembersEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/members",
  tag: "Members",
  summary: "The organization's members, newest first",
  auth: "session",
  roles: [...MANAGER_ROLES],
  query: MemberListQuery,
  response: z.object({ data: z.array(MemberObject), next_cursor: z.string().nullable() }),
});

export const updateMemberEndpoint = defineEndpoint({
  method: "PATCH",
  path: "/v1/members/{member}",
  tag: "Members",
  summary: "Change a member's role, or deactivate / reactivate them (their sessions end at once)",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: MemberParams,
  body: MemberUpdateBody,
  response: z.object({ data: MemberObject }),
  errors: ["not_found", "last_owner", "owner_role_reserved"],
});

export const deleteMemberEndpoint = defineEndpoint({
  method: "DELETE",
  path: "/v1/members/{member}",
  tag: "Members",
  summary: "Remove a member: their sessions end and their approvals stop counting at once",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: MemberParams,
  response: z.object({ data: z.object({ id: z.string(), deleted: z.literal(true) }) }),
  errors: ["not_found", "last_owner", "owner_role_reserved"],
});

export const updatePasswordEndpoint = defineEndpoint({
  method: "PUT",
  path: "/v1/members/me/password",
  tag: "Members",
  summary: "Change your own password (the current one is asked first)",
  auth: "session",
  body: PasswordChangeBody,
  response: z.object({ data: z.object({ changed: z.literal(true) }) }),
  errors: ["invalid_parameter", "password_incorrect"],
});

export const listInvitationsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/invitations",
  tag: "Members",
  summary: "Invitations of the organization, newest first (their links are never shown again)",
  auth: "session",
  roles: [...MANAGER_ROLES],
  query: MemberListQuery,
  response: z.object({ data: z.array(InvitationObject), next_cursor: z.string().nullable() }),
});

export const createInvitationEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/invitations",
  tag: "Members",
  summary: "Invite someone by e-mail with a role: a single-use link valid 7 days, returned once",
  auth: "session",
  roles: [...MANAGER_ROLES],
  body: InvitationCreateBody,
  status: 201,
  idempotencyReplay: "secret",
  response: z.object({ data: InvitationObject.extend({ url: z.string(), emailed: z.boolean() }) }),
  errors: ["email_unavailable", "owner_role_reserved", "idempotency_secret_not_replayable"],
});

export const revokeInvitationEndpoint = defineEndpoint({
  method: "DELETE",
  path: "/v1/invitations/{invitation}",
  tag: "Members",
  summary: "Revoke a pending invitation: its link no longer works",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: InvitationParams,
  response: z.object({ data: InvitationObject }),
  errors: ["not_found"],
});

// An invitation's link, accepted by someone not signed in yet: the token is the credential (app/api/invitations/accept/route.ts).
export const acceptInvitationRoute = definePublicRoute({
  method: "POST",
  path: "/api/invitations/accept",
  body: InvitationAcceptBody,
  response: z.object({ data: z.object({ id: z.string(), email: z.string() }) }),
});
