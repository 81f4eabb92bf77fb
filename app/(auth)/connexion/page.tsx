import type { Metadata } from "next";
import { getServerSession } from "next-auth";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/console/sign-in-form";
import { authOptions } from "@/lib/auth/options";

export const metadata: Metadata = { title: "Connexion" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string }> }) {
  if ((await getServerSession(authOptions))?.member) redirect("/agents");
  const { callbackUrl } = await searchParams;
  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <div className="w-full max-w-sm rounded-xl border border-slate-200 bg-white p-8 shadow-sm">
        <p className="text-sm font-semibold tracking-widest text-brand-600 uppercase">Guichet</p>
        <h1 className="mt-2 text-xl font-semibold">Connexion à la console</h1>
        <p className="mt-1 text-sm text-slate-600">
          Ce que vos agents ont le droit de faire, décidé par des personnes.
        </p>
        <SignInForm callbackUrl={callbackUrl?.startsWith("/") ? callbackUrl : "/agents"} />
      </div>
    </main>
  );
}
