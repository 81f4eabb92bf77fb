"use client";

import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { ErrorText } from "@/components/ui/error-text";
import { call } from "@/lib/client/call";
import { ApiClientError, type ApiFieldError } from "@/lib/client/errors";
import { setupRoute } from "@/lib/tenancy/api";

type Failure = Pick<ApiClientError, "code" | "message"> & { errors?: ApiFieldError[] };

const fieldMessages: Record<string, string> = {
  organization: "Donnez un nom à l’organisation (100 caractères au plus).",
  name: "Indiquez votre nom (100 caractères au plus).",
  email: "Indiquez une adresse e-mail valide.",
  password: "Au moins 10 caractères variés (72 octets au plus).",
};

const codeMessages: Record<string, string> = {
  already_set_up: "Cette installation a déjà une organisation : connectez-vous.",
  email_taken: "Cette adresse e-mail est déjà celle d’un membre.",
};

/** « Créer votre organisation »: the organization and its owner, then the owner is signed in with the same credentials. */
export function SetupForm() {
  const router = useRouter();
  const [failure, setFailure] = useState<Failure>();
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const body = {
      organization: String(form.get("organization") ?? ""),
      name: String(form.get("name") ?? ""),
      email: String(form.get("email") ?? ""),
      password: String(form.get("password") ?? ""),
    };
    setPending(true);
    setFailure(undefined);
    try {
      await call(setupRoute, { body });
    } catch (error) {
      setPending(false);
      setFailure(error instanceof ApiClientError ? error : { code: "internal_error", message: String(error) });
      return;
    }
    const result = await signIn("credentials", { email: body.email, password: body.password, redirect: false });
    setPending(false);
    router.push(result?.ok ? "/agents" : "/connexion");
    router.refresh();
  }

  const fieldError = (field: string) =>
    failure?.errors?.some((e) => e.field === field) ? fieldMessages[field] : undefined;

  return (
    <form onSubmit={onSubmit} className="mt-6 space-y-4" noValidate aria-label="Créer votre organisation">
      <TextField label="Nom de l’organisation" error={fieldError("organization")} name="organization" maxLength={100} />
      <TextField label="Votre nom" error={fieldError("name")} name="name" maxLength={100} autoComplete="name" />
      <TextField label="Adresse e-mail" error={fieldError("email")} name="email" type="email" autoComplete="username" />
      <TextField
        label="Mot de passe"
        error={fieldError("password")}
        hint="Au moins 10 caractères."
        name="password"
        type="password"
        autoComplete="new-password"
      />
      {failure && !failure.errors?.length && <ErrorText>{codeMessages[failure.code] ?? failure.message}</ErrorText>}
      <Button type="submit" disabled={pending} className="w-full">
        {pending ? "Création…" : "Créer l’organisation"}
      </Button>
    </form>
  );
}
