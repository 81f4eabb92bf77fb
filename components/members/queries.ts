"use client";

import { useQuery } from "@tanstack/react-query";
import { call, callAllPages } from "@/lib/client/call";
import {
  createInvitationEndpoint,
  deleteMemberEndpoint,
  listInvitationsEndpoint,
  listMembersEndpoint,
  revokeInvitationEndpoint,
  updateMemberEndpoint,
  type InvitationCreateBody,
  type MemberUpdateBody,
} from "@/lib/members/api";

// Members and invitations; every key under ["members"] is built here.
export const memberKeys = {
  all: ["members"] as const,
  list: () => [...memberKeys.all, "list"] as const,
  invitations: () => [...memberKeys.all, "invitations"] as const,
};

// Both lists change through other people's acts (an invitation accepted): opening the page asks again.
export function useMembers() {
  return useQuery({
    queryKey: memberKeys.list(),
    refetchOnMount: "always",
    queryFn: ({ signal }) => callAllPages(listMembersEndpoint, { signal }),
  });
}

/** The invitations still waiting to be accepted (used, revoked and expired ones are history). */
export function usePendingInvitations() {
  return useQuery({
    queryKey: memberKeys.invitations(),
    refetchOnMount: "always",
    queryFn: ({ signal }) =>
      callAllPages(listInvitationsEndpoint, { signal }).then((list) => list.filter((i) => i.status === "pending")),
  });
}

/** The answer carries the invitation's link, shown once. */
export function createInvitation(body: InvitationCreateBody) {
  return call(createInvitationEndpoint, { body }).then((answer) => answer.data);
}

export function revokeInvitation(id: string) {
  return call(revokeInvitationEndpoint, { params: { invitation: id } }).then((answer) => answer.data);
}

export function updateMember(id: string, body: MemberUpdateBody) {
  return call(updateMemberEndpoint, { params: { member: id }, body }).then((answer) => answer.data);
}

export function removeMember(id: string) {
  return call(deleteMemberEndpoint, { params: { member: id } }).then((answer) => answer.data);
}
