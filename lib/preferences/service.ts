import "server-only";
import { db } from "@/lib/db";
import { mailEnabled } from "@/lib/mail/send";
import type { PreferencesObject, PreferencesUpdateBody } from "./schemas";

export async function getPreferences(memberId: string): Promise<PreferencesObject> {
  const row = await db.memberPreference.findUnique({ where: { memberId } });
  return { approval_emails: row?.approvalEmails ?? true, email_enabled: mailEnabled() };
}

export async function updatePreferences(memberId: string, body: PreferencesUpdateBody): Promise<PreferencesObject> {
  await db.memberPreference.upsert({
    where: { memberId },
    create: { memberId, approvalEmails: body.approval_emails },
    update: { approvalEmails: body.approval_emails },
  });
  return getPreferences(memberId);
}
