"use client";

import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import {
  PASSWORD_MIN_LENGTH,
  passwordProblem,
  passwordProblemLabels,
  type PasswordProblem,
} from "@/lib/members/password-policy";
import { ErrorText } from "@/components/ui/error-text";
import { call } from "@/lib/client/call";
import { ApiClientError } from "@/lib/client/errors";
import { acceptInvitationRoute } from "@/lib/members/api";

type Errors = Partial<Record<"name" | "password" | "confirmation" | "form", string>>;

const invalidLink =
  "Ce lien d’invitation n’est plus valable : il a déjà servi, a été révoqué ou a expiré. Demandez une nouvelle invitation.";

const addressTaken =
  "Un compte Guichet existe déjà avec cette adresse e-mail : connectez-vous avec ce compte, ou demandez une invitation pour une autre adresse.";

/** The refusal of the accept endpoint, said under its field. */
function errorsOf(failure: ApiClientError | null): Errors {
  if (failure?.code === "invitation_invalid") return { form: invalidLink };
  if (failure?.code === "email_unavailable") return { form: addressTaken };
  const errors: Errors = {};
  for (const error of failure?.errors ?? []) {
    if (error.field === "password")
      errors.password = passwordProblemLabels[error.code as PasswordProblem] ?? "Choisissez un autre mot de passe.";
    else if (error.field === "name") errors.name = "Indiquez votre nom (100 caractères au plus).";
  }
  if (Object.keys(errors).length === 0)
    errors.form = failure?.code === "rate_limited" ? "Trop de tentatives : réessayez dans un moment." : invalidLink;
  return errors;
}

/**
 * Accepting an invitation: the account is created with the invited role, then the person is
 * signed in with the password just chosen (as the first owner is after « Créer votre organisation »).
 */
export function AcceptInvitationForm({
  token,
  email,
  organization,
  landing,
}: {
  token: string;
  email: string;
  organization: string;
  landing: string;
}) {
  const router = useRouter();
  const [errors, setErrors] = useState<Errors>({});
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const name = String(form.get("name") ?? "").trim();
    const password = String(form.get("password") ?? "");
    // The same rules as the server, checked first so the person is told without a round trip.
    const local: Errors = {};
    if (!name) local.name = "Indiquez votre nom.";
    const problem = passwordProblem(password, { email, organization });
    if (problem) local.password = passwordProblemLabels[problem];
    else if (password !== String(form.get("confirmation") ?? ""))
      local.confirmation = "Les deux mots de passe ne sont pas identiques.";
    setErrors(local);
    if (Object.keys(local).length > 0) return;

    setPending(true);
    try {
      await call(acceptInvitationRoute, { body: { token, name, password } });
    } catch (error) {
      setPending(false);
      setErrors(errorsOf(error instanceof ApiClientError ? error : null));
      return;
    }
    const result = await signIn("credentials", { email, password, redirect: false });
    if (result?.ok) {
      router.push(landing);
      router.refresh();
    } else {
      // The account exists; signing in can still be throttled: the sign-in page takes over, the address filled in.
      router.push(`/connexion?email=${encodeURIComponent(email)}`);
    }
  }

  return (
    <form onSubmit={onSubmit} className="mt-6 space-y-4" noValidate aria-label="Accepter l’invitation">
      <TextField label="Votre nom" error={errors.name} name="name" maxLength={100} autoComplete="name" />
      <TextField
        label="Mot de passe"
        error={errors.password}
        hint={`Au moins ${PASSWORD_MIN_LENGTH} caractères.`}
        name="password"
        type="password"
        autoComplete="new-password"
      />
      <TextField
        label="Confirmation du mot de passe"
        error={errors.confirmation}
        name="confirmation"
        type="password"
        autoComplete="new-password"
      />
      {errors.form && <ErrorText>{errors.form}</ErrorText>}
      <Button type="submit" disabled={pending} className="w-full">
        {pending ? "Création du compte…" : "Rejoindre l’organisation"}
      </Button>
    </form>
  );
}
