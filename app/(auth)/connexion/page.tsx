import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/console/sign-in-form";
import { callbackPathOrDefault } from "@/lib/auth/callback-url";
import { hasLiveSession } from "@/lib/auth/session";
import { setupStatus } from "@/lib/tenancy/organizations";

export const metadata: Metadata = { title: "Connexion" };

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ callbackUrl?: string; email?: string }>;
}) {
  const { callbackUrl, email } = await searchParams;
  // Already signed in (another tab did it): straight to the page that was asked for.
  if (await hasLiveSession()) redirect(callbackPathOrDefault(callbackUrl));
  // An empty instance: nobody can sign in yet, its first visitor creates the organization.
  const { first_run: firstRun, signup } = await setupStatus();
  if (firstRun) redirect("/creer-organisation");
  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <div className="w-full max-w-sm rounded-xl border border-slate-200 bg-white p-8 shadow-sm">
        <p className="text-sm font-semibold tracking-widest text-brand-600 uppercase">Guichet</p>
        <h1 className="mt-2 text-xl font-semibold">Connexion à la console</h1>
        <p className="mt-1 text-sm text-slate-600">
          Ce que vos agents ont le droit de faire, décidé par des personnes.
        </p>
        <SignInForm
          callbackUrl={callbackPathOrDefault(callbackUrl)}
          email={typeof email === "string" ? email.slice(0, 254) : undefined}
        />
        {signup && (
          <p className="mt-4 text-center text-sm">
            <Link href="/creer-organisation" className="text-brand-700 underline">
              Créer une organisation
            </Link>
          </p>
        )}
      </div>
    </main>
  );
}
