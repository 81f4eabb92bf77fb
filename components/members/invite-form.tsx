"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { UserPlus } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Field, TextField } from "@/components/ui/field";
import { roleLabels, type Role } from "@/lib/auth/scopes";
import { ApiClientError } from "@/lib/client/errors";
import { dateFormat, grantableRoles, refusalMessage } from "./labels";
import { createInvitation, memberKeys } from "./queries";
import { ErrorText } from "@/components/ui/error-text";
import { Card } from "@/components/ui/card";

const selectClass = "block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm";

interface Created {
  email: string;
  role: Role;
  url: string;
  emailed: boolean;
  expiresAt: string;
}

/** Invite by e-mail with a role; the single-use link is shown once, right after. */
export function InviteForm({ viewerRole }: { viewerRole: Role }) {
  const queryClient = useQueryClient();
  const [created, setCreated] = useState<Created>();
  const [failure, setFailure] = useState<unknown>();

  const invite = useMutation({
    mutationFn: createInvitation,
    onMutate: () => setFailure(undefined),
    onSuccess: (data) => {
      setCreated({
        email: data.email,
        role: data.role,
        url: data.url,
        emailed: data.emailed,
        expiresAt: data.expires_at,
      });
      void queryClient.invalidateQueries({ queryKey: memberKeys.invitations() });
    },
    onError: setFailure,
  });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    invite.mutate({ email: String(form.get("email") ?? ""), role: String(form.get("role") ?? "approver") as Role });
  }

  const apiError = failure instanceof ApiClientError ? failure : undefined;
  const emailError =
    apiError?.code === "email_unavailable"
      ? refusalMessage(apiError)
      : apiError?.fieldMessage("email")
        ? "Indiquez une adresse e-mail valide."
        : undefined;
  const otherError = failure !== undefined && !emailError ? refusalMessage(failure) : undefined;

  return (
    <Card as="section" className="h-fit" aria-labelledby="invite-title">
      <h2 id="invite-title" className="flex items-center gap-2 font-semibold">
        <UserPlus size={16} /> Inviter une personne
      </h2>
      {created ? (
        <div className="mt-4 space-y-3 text-sm" data-testid="invitation-link">
          <p>
            Lien d’invitation de {created.email} ({roleLabels[created.role].toLowerCase()}). Copiez-le maintenant : il
            ne sera plus jamais affiché.
          </p>
          <code className="block rounded bg-slate-100 p-2 text-xs break-all">{created.url}</code>
          <p className="text-slate-600">
            Valable une seule fois, jusqu’au {dateFormat.format(new Date(created.expiresAt))}.{" "}
            {created.emailed
              ? `Il a aussi été envoyé par e-mail à ${created.email}.`
              : "Aucun e-mail n’a été envoyé : transmettez-le vous-même."}
          </p>
          <div className="flex flex-wrap gap-2">
            <CopyButton text={created.url} confirmation="Lien copié." label="Copier le lien" />
            <Button variant="ghost" onClick={() => setCreated(undefined)}>
              Inviter quelqu’un d’autre
            </Button>
          </div>
        </div>
      ) : (
        <form onSubmit={onSubmit} className="mt-4 space-y-4" noValidate aria-label="Inviter une personne">
          <TextField
            label="Adresse e-mail"
            error={emailError}
            name="email"
            type="email"
            maxLength={254}
            placeholder="prenom.nom@exemple.fr"
          />
          <Field label="Rôle">
            {({ id }) => (
              <select id={id} name="role" defaultValue="approver" className={selectClass}>
                {grantableRoles(viewerRole).map((role) => (
                  <option key={role} value={role}>
                    {roleLabels[role]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {otherError && <ErrorText>{otherError}</ErrorText>}
          <Button type="submit" disabled={invite.isPending}>
            {invite.isPending ? "Invitation…" : "Inviter"}
          </Button>
        </form>
      )}
    </Card>
  );
}
