import { privateOrigins } from "@/lib/network/private-origins";
import { Card } from "@/components/ui/card";

// Read-only: the grants are the operator's (server environment); an admin sees
// only the private origins granted to their own organization, so they understand
// why a local address is refused.
export async function PrivateOriginsNote({ organizationId }: { organizationId: string }) {
  const { origins } = await privateOrigins(organizationId);
  return (
    <Card as="p" padding="none" className="px-5 py-3 text-sm text-slate-700" data-testid="private-origins">
      <span className="font-medium text-slate-900">
        Adresses privées que l’opérateur autorise à votre organisation :{" "}
      </span>
      {origins.length === 0 ? (
        <span>aucune. Les connecteurs doivent avoir une adresse publique.</span>
      ) : (
        <>
          {origins.map((origin, index) => (
            <span key={origin}>
              {index > 0 && ", "}
              <code className="rounded bg-slate-100 px-1 py-0.5 text-xs">{origin}</code>
            </span>
          ))}
          <span>
            . Seuls les connecteurs, webhooks et fournisseurs de modèles choisis par un administrateur et le moteur de
            recherche de l’opérateur peuvent les joindre ; jamais une adresse choisie par un agent.
          </span>
        </>
      )}
    </Card>
  );
}
