"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "sonner";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { EmptyState } from "@/components/ui/empty-state";
import { QueryState } from "@/components/ui/query-state";
import { Table, Td, Th } from "@/components/ui/table";
import { roleLabels, type Role } from "@/lib/auth/scopes";
import type { InvitationObject } from "@/lib/members/api";
import { dateFormat, refusalMessage } from "./labels";
import { memberKeys, revokeInvitation, usePendingInvitations } from "./queries";
import { ErrorText } from "@/components/ui/error-text";

/** Invitations not yet accepted; revoking one makes its link stop working. */
export function InvitationsTable({ viewerRole }: { viewerRole: Role }) {
  const queryClient = useQueryClient();
  const invitations = usePendingInvitations();
  const [rowError, setRowError] = useState<{ id: string; message: string }>();

  const revoke = useMutation({
    mutationFn: (invitation: InvitationObject) => revokeInvitation(invitation.id),
    onMutate: () => setRowError(undefined),
    onSuccess: (invitation) => {
      toast.success(`Invitation de ${invitation.email} révoquée : son lien ne fonctionne plus.`);
      void queryClient.invalidateQueries({ queryKey: memberKeys.invitations() });
    },
    onError: (error, invitation) => setRowError({ id: invitation.id, message: refusalMessage(error) }),
  });

  return (
    <QueryState
      query={invitations}
      isEmpty={(list) => list.length === 0}
      empty={
        <EmptyState title="Aucune invitation en attente">
          Les invitations acceptées, révoquées ou expirées n’apparaissent plus ici.
        </EmptyState>
      }
    >
      {(list) => (
        <Table caption="Invitations en attente">
          <thead>
            <tr>
              <Th>Adresse e-mail</Th>
              <Th>Rôle</Th>
              <Th>Expire le</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {list.map((invitation) => (
              <tr key={invitation.id}>
                <Td className="font-medium">{invitation.email}</Td>
                <Td>{roleLabels[invitation.role]}</Td>
                <Td className="whitespace-nowrap text-slate-600">
                  {dateFormat.format(new Date(invitation.expires_at))}
                </Td>
                <Td className="text-right">
                  <ConfirmButton
                    disabled={revoke.isPending || (viewerRole !== "owner" && invitation.role === "owner")}
                    question={`Révoquer l’invitation de ${invitation.email} ?`}
                    detail="Son lien ne fonctionnera plus."
                    confirmLabel="Révoquer l’invitation"
                    onConfirm={() => revoke.mutate(invitation)}
                  >
                    Révoquer
                  </ConfirmButton>
                  {rowError?.id === invitation.id && (
                    <ErrorText small className="mt-1">
                      {rowError.message}
                    </ErrorText>
                  )}
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </QueryState>
  );
}
