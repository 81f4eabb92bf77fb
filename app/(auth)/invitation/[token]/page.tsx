import type { Metadata } from "next";
import Link from "next/link";
import { AcceptInvitationForm } from "@/components/members/accept-invitation-form";
import { roleLabels } from "@/lib/auth/scopes";
import { invitationLinkState } from "@/lib/members/invitations";

export const metadata: Metadata = { title: "Invitation", robots: { index: false } };
export const dynamic = "force-dynamic";

const spent = {
  accepted: "Ce lien d’invitation a déjà servi : le compte existe. Connectez-vous avec son adresse e-mail.",
  revoked: "Cette invitation a été révoquée. Demandez une nouvelle invitation à un administrateur de l’organisation.",
  expired:
    "Ce lien d’invitation a expiré (il est valable 7 jours). Demandez une nouvelle invitation à un administrateur de l’organisation.",
  taken:
    "Un compte Guichet existe déjà avec cette adresse e-mail (une adresse n’appartient qu’à une organisation) : connectez-vous avec ce compte, ou demandez une invitation pour une autre adresse.",
  unknown:
    "Ce lien d’invitation n’est pas valable. Vérifiez qu’il a été copié en entier, ou demandez une nouvelle invitation.",
} as const;

// The invitation link's page (public: the token is the credential). The invited
// person chooses a name and a password, and is then signed in.
export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const invitation = await invitationLinkState(token);
  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <div className="w-full max-w-sm rounded-xl border border-slate-200 bg-white p-8 shadow-sm">
        <p className="text-sm font-semibold tracking-widest text-brand-600 uppercase">Guichet</p>
        {invitation.status === "pending" ? (
          <>
            <h1 className="mt-2 text-xl font-semibold">Rejoindre {invitation.organization}</h1>
            <p className="mt-1 text-sm text-slate-600">
              Vous êtes invité(e) comme {roleLabels[invitation.role].toLowerCase()} avec l’adresse{" "}
              <span className="font-medium text-slate-800">{invitation.email}</span>. Choisissez votre nom et votre mot
              de passe.
            </p>
            <AcceptInvitationForm
              token={token}
              email={invitation.email}
              organization={invitation.organization}
              landing={invitation.role === "approver" ? "/approbations" : "/agents"}
            />
          </>
        ) : (
          <>
            <h1 className="mt-2 text-xl font-semibold">Invitation non valable</h1>
            <p role="alert" className="mt-2 text-sm text-slate-700">
              {spent[invitation.status]}
            </p>
            <p className="mt-4 text-sm">
              <Link href="/connexion" className="text-brand-700 underline">
                Aller à la connexion
              </Link>
            </p>
          </>
        )}
      </div>
    </main>
  );
}
