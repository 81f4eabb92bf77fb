"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { connectionKeys, disconnectEveryone, useConnectionCounts } from "./queries";

/** For a connector that acts as each member: how many members are connected (never their tokens), and « tout déconnecter ». */
export function MemberConnectionCounts({ server }: { server: { id: number; name: string; auth: string } }) {
  const perMember = server.auth === "oauth" || server.auth === "per_user_token";
  const client = useQueryClient();
  const counts = useConnectionCounts(server.id, perMember);
  const disconnect = useMutation({
    mutationFn: () => disconnectEveryone(server.id),
    onSuccess: () => {
      toast.success(`Tous les membres sont déconnectés de « ${server.name} ».`);
      void client.invalidateQueries({ queryKey: connectionKeys.all });
    },
    onError: (error) => toast.error(error.message),
  });
  if (!perMember || !counts.data) return null;
  const { connected, needs_reconnect } = counts.data;
  return (
    <div className="mt-1 space-y-1 text-xs text-slate-600" data-testid="member-connection-counts">
      <p>
        {connected} membre{connected > 1 ? "s" : ""} connecté{connected > 1 ? "s" : ""}
        {needs_reconnect > 0 && ` · ${needs_reconnect} à reconnecter`}
      </p>
      {connected + needs_reconnect > 0 && (
        <ConfirmButton
          variant="ghost"
          question={`Déconnecter tous les membres de « ${server.name} » ?`}
          detail="Guichet oublie les jetons de chacun : chaque membre devra se reconnecter depuis « Mes connexions »."
          confirmLabel="Tout déconnecter"
          onConfirm={() => disconnect.mutate()}
        >
          Tout déconnecter
        </ConfirmButton>
      )}
    </div>
  );
}
