"use client";

import type { Role } from "@/lib/auth/scopes";
import { InvitationsTable } from "./invitations-table";
import { InviteForm } from "./invite-form";
import { MembersTable } from "./members-table";

/** « Membres »: who belongs to the organization, who is invited, and the invitation form. */
export function MembersPanel({ viewer }: { viewer: { id: string; role: Role } }) {
  return (
    <div className="grid gap-8 lg:grid-cols-[minmax(0,1fr)_22rem]">
      <div className="space-y-8">
        <section aria-labelledby="members-title" className="space-y-3">
          <h2 id="members-title" className="font-semibold">
            Membres de l’organisation
          </h2>
          <MembersTable viewer={viewer} />
        </section>
        <section aria-labelledby="invitations-title" className="space-y-3">
          <h2 id="invitations-title" className="font-semibold">
            Invitations en attente
          </h2>
          <InvitationsTable viewerRole={viewer.role} />
        </section>
      </div>
      <InviteForm viewerRole={viewer.role} />
    </div>
  );
}
