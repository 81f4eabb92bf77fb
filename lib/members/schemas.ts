import { z } from "zod";
import { Role } from "@/lib/auth/scopes";
import { ListQuery } from "@/lib/http/list-query";

// Members' and invitations' zod schemas and types: safe for the browser (no server import).

export const MemberParams = z.strictObject({ member: z.string().regex(/^mem_[0-9a-z]{26}$/, "must be a member id") });
export const InvitationParams = z.strictObject({
  invitation: z.string().regex(/^inv_[0-9a-z]{26}$/, "must be an invitation id"),
});

export const MemberObject = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: Role,
  status: z.enum(["active", "deactivated"]),
  created_at: z.string(),
  /** The last successful sign-in the audit trail still holds; null if none. */
  last_sign_in_at: z.string().nullable(),
});
export type MemberObject = z.infer<typeof MemberObject>;

export const MemberUpdateBody = z
  .strictObject({ role: Role.optional(), active: z.boolean().optional() })
  .refine((body) => body.role !== undefined || body.active !== undefined, "Send role or active.");
export type MemberUpdateBody = z.infer<typeof MemberUpdateBody>;

export const PasswordChangeBody = z.strictObject({
  current_password: z.string().min(1).max(200),
  new_password: z.string().min(1).max(200),
});

export const InvitationCreateBody = z.strictObject({
  email: z.string().trim().toLowerCase().pipe(z.email().max(254)).meta({ format: "email" }),
  role: Role,
});
export type InvitationCreateBody = z.infer<typeof InvitationCreateBody>;

export const InvitationObject = z.object({
  id: z.string(),
  email: z.string(),
  role: Role,
  status: z.enum(["pending", "accepted", "revoked", "expired"]),
  invited_by: z.string().nullable(),
  expires_at: z.string(),
  created_at: z.string(),
});
export type InvitationObject = z.infer<typeof InvitationObject>;

export const InvitationAcceptBody = z.strictObject({
  token: z.string().min(20).max(200),
  name: z.string().trim().min(1).max(100),
  password: z.string().min(1).max(200),
});

export const MemberListQuery = ListQuery;
