"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { CopyButton, usePageOrigin } from "@/components/ui/copy-button";
import type { WidgetObject } from "@/lib/widgets/schemas";
import { rotateWidgetPublicKey, rotateWidgetSecret, updateWidget, widgetKeys } from "./queries";
import { WidgetConversations } from "./widget-conversations";
import { WidgetPreview } from "./widget-preview";
import { WidgetSettingsForm } from "./widget-settings-form";

/** The snippet a customer pastes in their pages. */
export function widgetSnippet(origin: string, publicKey: string): string {
  return `<script src="${origin}/widget.js" data-key="${publicKey}" async></script>`;
}

/** What the organization's server runs to sign a verified visitor's token (Node, with `jose`). */
export function tokenExample(widgetId: string): string {
  return `import { SignJWT } from "jose";

// On your server, for the signed-in customer: never in the browser.
const secret = new TextEncoder().encode(process.env.GUICHET_WIDGET_SECRET); // wsec_…
export function widgetUserToken(customer) {
  return new SignJWT({ name: customer.name, email: customer.email })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(String(customer.id))
    .setAudience("${widgetId}")
    .setIssuedAt()
    .setExpirationTime("15m") // one hour at most
    .sign(secret);
}
// In the page: <script src="…/widget.js" data-key="pk_…" data-user-token="<token>" async></script>`;
}

export function WidgetCard({
  widget,
  agentName,
  canPreview,
}: {
  widget: WidgetObject;
  agentName: string;
  canPreview: boolean;
}) {
  const queryClient = useQueryClient();
  const origin = usePageOrigin();
  const [secret, setSecret] = useState<string | null>(null);
  const [showConversations, setShowConversations] = useState(false);
  const [editing, setEditing] = useState(false);
  const [previewing, setPreviewing] = useState(false);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: widgetKeys.list() });
  const onError = (error: Error) => toast.error(error.message);
  const rotateKey = useMutation({
    mutationFn: () => rotateWidgetPublicKey(widget.id),
    onSuccess: () => {
      toast.success("Nouvelle clé publique : remplacez l’extrait sur vos pages.");
      refresh();
    },
    onError,
  });
  const rotateSecret = useMutation({
    mutationFn: () => rotateWidgetSecret(widget.id),
    onSuccess: (data) => {
      setSecret(data.signing_secret);
      refresh();
    },
    onError,
  });
  const toggle = useMutation({
    mutationFn: () => updateWidget(widget.id, { active: !widget.active }),
    onSuccess: refresh,
    onError,
  });
  const snippet = widgetSnippet(origin, widget.public_key);

  return (
    <Card as="article" aria-label={`Widget ${widget.name}`} padding="sm" className="space-y-3">
      <header className="flex flex-wrap items-center gap-2">
        <h2 className="text-base font-semibold text-slate-900">{widget.name}</h2>
        <Badge tone={widget.active ? "success" : "neutral"}>{widget.active ? "Actif" : "Inactif"}</Badge>
        <Badge tone="neutral">{widget.identity === "verified" ? "Visiteurs vérifiés" : "Visiteurs anonymes"}</Badge>
        <Badge tone={widget.capabilities === "read_write" ? "warning" : "neutral"}>
          {widget.capabilities === "read_write" ? "Lecture et écriture" : "Lecture seule"}
        </Badge>
      </header>
      <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
        <dt className="text-slate-500">Agent</dt>
        <dd>{agentName}</dd>
        <dt className="text-slate-500">Origines</dt>
        <dd>{widget.allowed_origins.join(", ")}</dd>
        <dt className="text-slate-500">Clé publique</dt>
        <dd>
          <code className="text-xs">{widget.public_key}</code>
        </dd>
        <dt className="text-slate-500">Utilisation</dt>
        <dd data-testid="widget-usage">
          {widget.usage.conversations} conversation{widget.usage.conversations > 1 ? "s" : ""} · {widget.usage.messages}{" "}
          message{widget.usage.messages > 1 ? "s" : ""}
          {widget.usage.preview_conversations > 0 && ` (dont ${widget.usage.preview_conversations} en aperçu)`}
        </dd>
      </dl>
      <div>
        <p className="text-sm font-medium text-slate-800">Extrait à coller dans vos pages</p>
        <pre className="mt-1 overflow-x-auto rounded bg-slate-900 p-2 text-xs text-slate-100">{snippet}</pre>
        <CopyButton text={snippet} confirmation="Extrait copié." />
      </div>
      {widget.identity === "verified" && (
        <details className="text-sm">
          <summary className="cursor-pointer font-medium">Signer le jeton d’un visiteur (Node)</summary>
          <pre className="mt-1 overflow-x-auto rounded bg-slate-900 p-2 text-xs text-slate-100">
            {tokenExample(widget.id)}
          </pre>
        </details>
      )}
      {secret && (
        <p role="status" className="rounded bg-amber-50 p-2 text-sm text-amber-900">
          Nouveau secret de signature, affiché une seule fois : <code className="break-all">{secret}</code>
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        <ConfirmButton
          question="Renouveler la clé publique ?"
          detail="Les pages qui portent l’extrait actuel ne joindront plus l’agent : il faudra coller le nouvel extrait."
          confirmLabel="Renouveler la clé"
          onConfirm={() => rotateKey.mutate()}
        >
          Renouveler la clé publique
        </ConfirmButton>
        <ConfirmButton
          question="Renouveler le secret de signature ?"
          detail="Les jetons signés avec l’ancien secret seront refusés dès maintenant."
          confirmLabel="Renouveler le secret"
          onConfirm={() => rotateSecret.mutate()}
        >
          Renouveler le secret
        </ConfirmButton>
        <Button variant="secondary" onClick={() => toggle.mutate()}>
          {widget.active ? "Désactiver" : "Réactiver"}
        </Button>
        <Button variant="ghost" aria-expanded={editing} onClick={() => setEditing((v) => !v)}>
          Apparence et limites
        </Button>
        {canPreview && (
          <Button variant="ghost" aria-expanded={previewing} onClick={() => setPreviewing((v) => !v)}>
            Aperçu
          </Button>
        )}
        <Button variant="ghost" aria-expanded={showConversations} onClick={() => setShowConversations((v) => !v)}>
          Conversations
        </Button>
      </div>
      {editing && <WidgetSettingsForm widget={widget} onSaved={() => setEditing(false)} />}
      {previewing && <WidgetPreview widget={widget} />}
      {showConversations && <WidgetConversations widgetId={widget.id} />}
    </Card>
  );
}
