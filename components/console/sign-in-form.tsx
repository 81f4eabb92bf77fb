"use client";

import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field, TextInput } from "@/components/ui/field";
import { ErrorText } from "@/components/ui/error-text";

/** `email` prefills the address (a page that just created the account sends the person here with it). */
export function SignInForm({ callbackUrl, email }: { callbackUrl: string; email?: string }) {
  const router = useRouter();
  const [error, setError] = useState<string>();
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(undefined);
    const result = await signIn("credentials", {
      email: form.get("email"),
      password: form.get("password"),
      redirect: false,
    });
    setPending(false);
    if (result?.ok) {
      router.push(callbackUrl);
      router.refresh();
    } else if (result?.error === "SignInThrottled") {
      setError("Trop de tentatives de connexion. Patientez quelques minutes avant de réessayer.");
    } else {
      setError("Adresse e-mail ou mot de passe incorrect.");
    }
  }

  return (
    <form onSubmit={onSubmit} className="mt-6 space-y-4" noValidate>
      <Field label="Adresse e-mail">
        {({ id, describedBy }) => (
          <TextInput
            id={id}
            name="email"
            type="email"
            autoComplete="username"
            defaultValue={email}
            required
            aria-describedby={describedBy}
          />
        )}
      </Field>
      <Field label="Mot de passe">
        {({ id, describedBy }) => (
          <TextInput
            id={id}
            name="password"
            type="password"
            autoComplete="current-password"
            required
            aria-describedby={describedBy}
          />
        )}
      </Field>
      {error && <ErrorText>{error}</ErrorText>}
      <Button type="submit" className="w-full" disabled={pending}>
        {pending ? "Connexion…" : "Se connecter"}
      </Button>
    </form>
  );
}
