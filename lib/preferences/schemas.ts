import { z } from "zod";

// The signed-in member's own settings. Browser-safe.

export const PreferencesObject = z.object({
  /** E-mail me when a proposal waits for my role's approval (when the instance sends e-mail). */
  approval_emails: z.boolean(),
  /** Whether this instance sends e-mail at all (GUICHET_SMTP_URL). */
  email_enabled: z.boolean(),
});
export type PreferencesObject = z.infer<typeof PreferencesObject>;

export const PreferencesUpdateBody = z.strictObject({ approval_emails: z.boolean() });
export type PreferencesUpdateBody = z.infer<typeof PreferencesUpdateBody>;
