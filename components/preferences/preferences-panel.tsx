"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { QueryState } from "@/components/ui/query-state";
import { preferenceKeys, updateMyPreferences, useMyPreferences } from "./queries";
import { Card } from "@/components/ui/card";

// One switch today: the e-mail an approver receives when a proposal waits for
// their role. The e-mail links here, so turning it off is one click away.
export function PreferencesPanel() {
  const query = useMyPreferences();
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: updateMyPreferences,
    onSuccess: (saved) => {
      client.setQueryData(preferenceKeys.mine(), saved);
      toast.success(saved.approval_emails ? "E-mails d’approbation activés." : "E-mails d’approbation désactivés.");
    },
    onError: (error) => toast.error(error.message),
  });
  return (
    <QueryState query={query}>
      {(preferences) => (
        <Card as="section" padding="none" className="space-y-3 px-5 py-4" aria-labelledby="approval-emails">
          <h2 id="approval-emails" className="text-sm font-semibold text-slate-900">
            E-mails d’approbation
          </h2>
          <label className="flex items-start gap-3 text-sm text-slate-700">
            <input
              type="checkbox"
              className="mt-0.5"
              checked={preferences.approval_emails}
              disabled={save.isPending}
              onChange={(event) => save.mutate({ approval_emails: event.target.checked })}
            />
            <span>
              Me prévenir par e-mail quand une proposition attend l’approbation de mon rôle. L’e-mail décrit l’effet et
              renvoie vers l’écran d’approbation ; on n’approuve jamais depuis un e-mail.
            </span>
          </label>
          {!preferences.email_enabled && (
            <p className="text-sm text-slate-500">
              Ce serveur n’envoie pas d’e-mail pour l’instant (aucun relais SMTP configuré) : le réglage s’appliquera
              dès qu’il en aura un.
            </p>
          )}
        </Card>
      )}
    </QueryState>
  );
}
