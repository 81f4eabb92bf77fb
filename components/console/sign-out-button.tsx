"use client";

import { signOut } from "next-auth/react";
import { useState } from "react";
import { endAllSessions } from "./queries";

const linkStyle = "block text-sm text-slate-600 underline-offset-2 hover:underline disabled:opacity-60";

export function SignOutButton() {
  return (
    <button type="button" onClick={() => signOut({ callbackUrl: "/connexion" })} className={linkStyle}>
      Se déconnecter
    </button>
  );
}

/** Ends the sessions on every device (a lost laptop, a shared computer), then leaves this one. */
export function SignOutEverywhereButton() {
  const [pending, setPending] = useState(false);
  const [failed, setFailed] = useState(false);
  async function onClick() {
    setPending(true);
    setFailed(false);
    try {
      await endAllSessions();
      await signOut({ callbackUrl: "/connexion" });
    } catch {
      setFailed(true);
      setPending(false);
    }
  }
  return (
    <>
      <button type="button" onClick={onClick} disabled={pending} className={linkStyle}>
        {pending ? "Déconnexion…" : "Se déconnecter partout"}
      </button>
      {failed && (
        <p role="alert" className="text-red-700">
          La déconnexion de vos autres sessions a échoué. Réessayez.
        </p>
      )}
    </>
  );
}
