import { privateOrigins } from "@/lib/network/private-origins";

// Read-only: the allowlist is the operator's (server environment), not the
// organization's. Shown so an admin understands why a local address is refused.
export function PrivateOriginsNote() {
  const { origins } = privateOrigins();
  return (
    <p
      className="rounded-lg border border-slate-200 bg-white px-5 py-3 text-sm text-slate-700"
      data-testid="private-origins"
    >
      <span className="font-medium text-slate-900">Adresses privées autorisées par l’opérateur : </span>
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
            . Seuls les connecteurs et le moteur de recherche choisis par l’opérateur peuvent les joindre ; jamais une
            adresse choisie par un agent.
          </span>
        </>
      )}
    </p>
  );
}
