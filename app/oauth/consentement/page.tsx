import type { Metadata } from "next";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { roleLabels } from "@/lib/auth/scopes";
import { sessionFromCookies } from "@/lib/auth/session-cookie";
import { db } from "@/lib/db";
import {
  AuthorizationPageError,
  AuthorizationRedirectError,
  checkAuthorizationRequest,
  errorRedirect,
  paramsOf,
  roleMayGrant,
} from "@/lib/oauth/authorize";
import { consentToken } from "@/lib/oauth/consent";
import { headers } from "next/headers";
import { env } from "@/lib/env";

export const metadata: Metadata = { title: "Autoriser une application" };

const scopeWords = {
  "mcp:read": "Lecture : consulter ce que l’agent peut lire, en votre nom.",
  "mcp:read_write":
    "Lecture et écriture : proposer des modifications en votre nom — chaque écriture attend toujours une approbation.",
} as const;

async function issuer(): Promise<string> {
  if (env.consoleOrigin) return env.consoleOrigin;
  const bag = await headers();
  const proto = bag.get("x-forwarded-proto") ?? "http";
  return `${proto}://${bag.get("host")}`;
}

export default async function ConsentPage({ searchParams }: { searchParams: Promise<Record<string, string>> }) {
  const raw = await searchParams;
  const query = new URLSearchParams(Object.entries(raw).filter(([, v]) => typeof v === "string"));
  const jar = await cookies();
  const session = await sessionFromCookies(jar);
  // The console's own sign-in (same form, same throttle), then back here with the same request.
  if (!session) redirect(`/connexion?callbackUrl=${encodeURIComponent(`/oauth/consentement?${query}`)}`);
  const origin = await issuer();
  let request;
  try {
    request = await checkAuthorizationRequest(paramsOf(query), origin);
  } catch (error) {
    if (error instanceof AuthorizationRedirectError) redirect(errorRedirect(error, origin));
    if (error instanceof AuthorizationPageError)
      return (
        <Frame>
          <h1 className="text-xl font-semibold">Autorisation impossible</h1>
          <p className="mt-2 text-sm text-slate-700">
            L’application a fait une demande invalide ; rien n’a été autorisé. ({error.oauth.errorCode})
          </p>
        </Frame>
      );
    throw error;
  }
  const [agent, member] = await Promise.all([
    db.agent.findFirst({
      where: { id: request.agentId, organizationId: session.organizationId },
      select: { name: true },
    }),
    db.member.findUnique({
      where: { id: session.memberId },
      select: { name: true, organization: { select: { name: true } } },
    }),
  ]);
  const allowed = roleMayGrant(session.role, request.scope);
  const csrf = consentToken(jar, {
    clientId: request.client.clientId,
    codeChallenge: request.codeChallenge,
    scope: request.scope,
    resource: request.resource,
  });
  return (
    <Frame>
      <p className="text-sm font-semibold tracking-widest text-brand-600 uppercase">Guichet</p>
      <h1 className="mt-2 text-xl font-semibold">
        « {request.client.name} » <span className="text-sm font-normal text-amber-700">(non vérifié)</span> demande
        l’accès à votre compte
      </h1>
      <dl className="mt-4 space-y-2 text-sm">
        <div>
          <dt className="font-medium">Application</dt>
          <dd data-testid="client-name">
            {request.client.name} — nom, site et logo tels que l’application les déclare, non vérifiés
          </dd>
          {request.client.uri && <dd className="text-slate-600">Site : {request.client.uri}</dd>}
          {request.client.logoUri && <dd className="text-slate-600">Logo : {request.client.logoUri}</dd>}
          <dd className="break-all text-slate-500">Identifiant : {request.client.clientId}</dd>
        </div>
        <div>
          <dt className="font-medium">Agent</dt>
          <dd data-testid="agent-name">{agent?.name ?? "Agent introuvable dans votre organisation"}</dd>
        </div>
        <div>
          <dt className="font-medium">Compte</dt>
          <dd>
            {member?.name} ({roleLabels[session.role]}) — {member?.organization.name}
          </dd>
        </div>
        <div>
          <dt className="font-medium">Ce que l’application pourra faire</dt>
          <dd data-testid="scope">{scopeWords[request.scope]}</dd>
        </div>
      </dl>
      {!allowed && (
        <p role="alert" className="mt-4 rounded bg-amber-50 p-3 text-sm text-amber-900">
          Votre rôle ({roleLabels[session.role]}) ne permet pas d’autoriser l’écriture : vous pouvez seulement refuser.
        </p>
      )}
      <form method="post" action="/oauth/authorize" className="mt-6 flex gap-3">
        {[...query.entries()].map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <input type="hidden" name="csrf" value={csrf ?? ""} />
        {allowed && agent && (
          <button
            name="decision"
            value="allow"
            className="rounded bg-brand-600 px-4 py-2 text-sm font-medium text-white hover:bg-brand-700"
          >
            Autoriser
          </button>
        )}
        <button name="decision" value="deny" className="rounded border border-slate-300 px-4 py-2 text-sm font-medium">
          Refuser
        </button>
      </form>
    </Frame>
  );
}

function Frame({ children }: { children: React.ReactNode }) {
  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <div className="w-full max-w-lg rounded-xl border border-slate-200 bg-white p-8 shadow-sm">{children}</div>
    </main>
  );
}
