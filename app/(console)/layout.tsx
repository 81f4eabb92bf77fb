import type { ReactNode } from "react";
import { ConsoleMenu } from "@/components/console/console-menu";
import { ConsoleNav } from "@/components/console/nav";
import { SignOutButton, SignOutEverywhereButton } from "@/components/console/sign-out-button";
import { requireMember } from "@/lib/auth/session";
import { roleLabels } from "@/lib/auth/scopes";
import { Role } from "@/lib/auth/scopes";

export const dynamic = "force-dynamic";

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const member = await requireMember();
  return (
    <div className="flex min-h-screen flex-col md:flex-row">
      <aside
        aria-label="Console"
        className="border-b border-slate-200 bg-white px-4 py-3 md:w-60 md:shrink-0 md:border-r md:border-b-0 md:py-5"
      >
        <ConsoleMenu
          header={
            <>
              <p className="px-3 text-lg font-semibold tracking-tight">Guichet</p>
              <p className="px-3 text-xs text-slate-500">
                {member.organization.name} · formule {member.organization.planId}
              </p>
            </>
          }
        >
          <div className="mt-6">
            <ConsoleNav role={Role.parse(member.role)} />
          </div>
          <div className="mt-8 space-y-1 border-t border-slate-200 px-3 pt-4 text-xs text-slate-600">
            <p className="font-medium text-slate-800">{member.name}</p>
            <p>
              {member.email} · {roleLabels[Role.parse(member.role)]}
            </p>
            <SignOutButton />
            <SignOutEverywhereButton />
          </div>
        </ConsoleMenu>
      </aside>
      <main className="min-w-0 flex-1 px-4 py-6 md:px-10">{children}</main>
    </div>
  );
}
