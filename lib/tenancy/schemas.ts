import { z } from "zod";

// Organizations' zod schemas and types: safe for the browser (no server import).

const byteLength = (value: string) => new TextEncoder().encode(value).length;

/** bcrypt reads 72 bytes at most: a longer password would be cut without a word. */
export const NewPassword = z
  .string()
  .min(10, "At least 10 characters.")
  .refine((value) => byteLength(value) <= 72, "At most 72 bytes.")
  .refine((value) => new Set(value).size >= 4, "Too simple: use more different characters.");

export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .pipe(z.email("Must be an e-mail address."))
  .meta({ format: "email" });

export const OrganizationName = z.string().trim().min(1).max(100);
export const PersonName = z.string().trim().min(1).max(100);

/** The first run (and public sign-up): an organization and its owner. */
export const SetupBody = z.strictObject({
  organization: OrganizationName,
  name: PersonName,
  email: Email,
  password: NewPassword,
});
export type SetupBody = z.infer<typeof SetupBody>;

export const SetupStatusObject = z.object({
  /** No organization yet: the next setup creates the instance's first organization and its owner. */
  first_run: z.boolean(),
  /** Anyone may create an organization (GUICHET_ALLOW_SIGNUP=1). */
  signup: z.boolean(),
});
export type SetupStatusObject = z.infer<typeof SetupStatusObject>;

export const OrganizationObject = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  plan: z.string(),
  member_count: z.number().int(),
  created_at: z.string(),
});
export type OrganizationObject = z.infer<typeof OrganizationObject>;

export const OrganizationCreateBody = z.strictObject({
  name: OrganizationName,
  plan: z.string().min(1).max(40),
  owner: z.strictObject({ name: PersonName, email: Email, password: NewPassword }),
});
export type OrganizationCreateBody = z.infer<typeof OrganizationCreateBody>;

export const OrganizationUpdateBody = z.strictObject({ plan: z.string().min(1).max(40) });
export type OrganizationUpdateBody = z.infer<typeof OrganizationUpdateBody>;

export const OrganizationParams = z.object({ organization: z.string() });
