"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { PendingApprovalsBadge } from "@/components/approvals/pending-badge";
import type { Role } from "@/lib/auth/scopes";
import { listAuditEventsEndpoint } from "@/lib/audit/api";
import { listMembersEndpoint } from "@/lib/members/api";
import { listWebhookEndpointsEndpoint } from "@/lib/webhooks/api";
import { mayCall, type Endpoint } from "@/lib/http/endpoint";

interface NavLink {
  href: string;
  label: string;
  badge?: ReactNode;
  /** Only those who may call the page's endpoint see the link (its API allows no one else). */
  endpoint?: Pick<Endpoint, "auth" | "scopes" | "roles">;
}

const sections: { title: string; links: NavLink[] }[] = [
  {
    title: "Développeurs",
    links: [
      { href: "/agents", label: "Agents" },
      { href: "/outils", label: "Outils" },
      { href: "/connecteurs", label: "Connecteurs MCP" },
      { href: "/modeles", label: "Modèles" },
      { href: "/cles-api", label: "Clés API" },
      { href: "/webhooks", label: "Webhooks", endpoint: listWebhookEndpointsEndpoint },
      { href: "/widgets", label: "Widget" },
    ],
  },
  {
    title: "Contrôle",
    links: [
      { href: "/approbations", label: "Approbations", badge: <PendingApprovalsBadge /> },
      { href: "/operations", label: "Opérations" },
      { href: "/politiques", label: "Politiques" },
      { href: "/journal", label: "Journal" },
      { href: "/audit", label: "Audit", endpoint: listAuditEventsEndpoint },
    ],
  },
  {
    title: "Compte",
    links: [
      { href: "/membres", label: "Membres", endpoint: listMembersEndpoint },
      { href: "/preferences", label: "Préférences" },
    ],
  },
];

export function ConsoleNav({ role }: { role: Role }) {
  const pathname = usePathname();
  return (
    <nav aria-label="Navigation principale" className="space-y-6">
      {sections.map((section) => (
        <div key={section.title}>
          <p className="px-3 text-xs font-semibold tracking-wider text-slate-500 uppercase">{section.title}</p>
          <ul className="mt-2 space-y-1">
            {section.links
              .filter((link) => !link.endpoint || mayCall(link.endpoint, role))
              .map((link) => {
                const current = pathname === link.href || pathname.startsWith(`${link.href}/`);
                return (
                  <li key={link.href}>
                    <Link
                      href={link.href}
                      aria-current={current ? "page" : undefined}
                      className={`flex items-center rounded-md px-3 py-1.5 text-sm ${current ? "bg-brand-50 font-medium text-brand-700" : "text-slate-700 hover:bg-slate-100"}`}
                    >
                      {link.label}
                      {link.badge}
                    </Link>
                  </li>
                );
              })}
          </ul>
        </div>
      ))}
    </nav>
  );
}
