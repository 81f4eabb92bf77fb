import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SetupForm } from "@/components/console/setup-form";
import { hasLiveSession } from "@/lib/auth/session";
import { setupStatus } from "@/lib/tenancy/organizations";

export const metadata: Metadata = { title: "Créer votre organisation" };
export const dynamic = "force-dynamic";

// The first visitor of an empty instance creates its organization here, once;
// afterwards the page exists only when the operator allows public sign-up.
export default async function SetupPage() {
  if (await hasLiveSession()) redirect("/agents");
  const { first_run: firstRun, signup } = await setupStatus();
  if (!firstRun && !signup) redirect("/connexion");
  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <div className="w-full max-w-sm rounded-xl border border-slate-200 bg-white p-8 shadow-sm">
        <p className="text-sm font-semibold tracking-widest text-brand-600 uppercase">Guichet</p>
        <h1 className="mt-2 text-xl font-semibold">
          {firstRun ? "Créer votre organisation" : "Créer une organisation"}
        </h1>
        <p className="mt-1 text-sm text-slate-600">
          {firstRun
            ? "Cette installation est vide : vous en serez la propriétaire ou le propriétaire, et pourrez ensuite inviter votre équipe."
            : "Vous serez propriétaire de la nouvelle organisation."}
        </p>
        <SetupForm />
      </div>
    </main>
  );
}
