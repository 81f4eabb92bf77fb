"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Drawer } from "@/components/ui/drawer";
import { QueryState } from "@/components/ui/query-state";
import { Table, Td, Th } from "@/components/ui/table";
import { roleLabels, type Role } from "@/lib/auth/scopes";
import type { MemberObject } from "@/lib/members/api";
import { dateFormat, grantableRoles, refusalMessage } from "./labels";
import { memberKeys, removeMember, updateMember, useMembers } from "./queries";
import { ErrorText } from "@/components/ui/error-text";

const selectClass = "rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm disabled:bg-slate-50";

/** The organization's members: role, status, removal. A refusal is said on the member's row. */
export function MembersTable({ viewer }: { viewer: { id: string; role: Role } }) {
  const queryClient = useQueryClient();
  const members = useMembers();
  const [rowError, setRowError] = useState<{ id: string; message: string }>();
  const [removing, setRemoving] = useState<MemberObject>();
  const [removeError, setRemoveError] = useState<string>();

  const refresh = () => queryClient.invalidateQueries({ queryKey: memberKeys.list() });
  const update = useMutation({
    mutationFn: (input: { member: MemberObject; role?: Role; active?: boolean }) =>
      updateMember(input.member.id, { role: input.role, active: input.active }),
    onMutate: () => setRowError(undefined),
    onSuccess: (member, input) => {
      toast.success(
        input.active === undefined
          ? `${member.name} est maintenant ${roleLabels[member.role].toLowerCase()}.`
          : member.status === "active"
            ? `${member.name} est réactivé(e).`
            : `${member.name} est désactivé(e) : ses sessions sont fermées.`,
      );
      void refresh();
    },
    onError: (error, input) => {
      setRowError({ id: input.member.id, message: refusalMessage(error) });
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (member: MemberObject) => removeMember(member.id),
    onMutate: () => setRemoveError(undefined),
    onSuccess: (_, member) => {
      toast.success(`${member.name} ne fait plus partie de l’organisation.`);
      setRemoving(undefined);
      void refresh();
    },
    onError: (error) => setRemoveError(refusalMessage(error)),
  });

  // An admin cannot change an owner: the API refuses, so the controls say it before.
  const locked = (member: MemberObject) => viewer.role !== "owner" && member.role === "owner";

  return (
    <>
      <QueryState query={members}>
        {(list) => (
          <Table caption="Membres">
            <thead>
              <tr>
                <Th>Nom</Th>
                <Th>Adresse e-mail</Th>
                <Th>Rôle</Th>
                <Th>Statut</Th>
                <Th>Dernière connexion</Th>
                <Th>
                  <span className="sr-only">Actions</span>
                </Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {list.map((member) => (
                <tr key={member.id}>
                  <Td className="font-medium">
                    {member.name}
                    {member.id === viewer.id && <span className="ml-1 text-xs text-slate-500">(vous)</span>}
                  </Td>
                  <Td className="text-slate-700">{member.email}</Td>
                  <Td>
                    <select
                      aria-label={`Rôle de ${member.name}`}
                      className={selectClass}
                      value={member.role}
                      disabled={locked(member) || update.isPending}
                      onChange={(event) => update.mutate({ member, role: event.target.value as Role })}
                    >
                      {(locked(member) ? [member.role] : grantableRoles(viewer.role)).map((role) => (
                        <option key={role} value={role}>
                          {roleLabels[role]}
                        </option>
                      ))}
                    </select>
                  </Td>
                  <Td>
                    {member.status === "active" ? (
                      <Badge tone="success">Actif</Badge>
                    ) : (
                      <Badge tone="danger">Désactivé</Badge>
                    )}
                  </Td>
                  <Td className="whitespace-nowrap text-slate-600">
                    {member.last_sign_in_at ? dateFormat.format(new Date(member.last_sign_in_at)) : "Jamais"}
                  </Td>
                  <Td className="text-right">
                    <div className="flex justify-end gap-2">
                      <Button
                        variant="secondary"
                        disabled={locked(member) || update.isPending}
                        onClick={() => update.mutate({ member, active: member.status !== "active" })}
                      >
                        {member.status === "active" ? "Désactiver" : "Réactiver"}
                      </Button>
                      <Button
                        variant="secondary"
                        disabled={locked(member)}
                        onClick={() => {
                          setRemoveError(undefined);
                          setRemoving(member);
                        }}
                      >
                        Retirer
                      </Button>
                    </div>
                    {rowError?.id === member.id && (
                      <ErrorText small className="mt-1 text-right">
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

      <Drawer
        open={removing !== undefined}
        onOpenChange={(open) => !open && setRemoving(undefined)}
        title={removing ? `Retirer ${removing.name} ?` : "Retirer"}
        description="Ses sessions sont fermées tout de suite et ses approbations ne comptent plus pour les propositions pas encore exécutées."
        footer={
          <>
            <Button variant="ghost" onClick={() => setRemoving(undefined)}>
              Annuler
            </Button>
            <Button variant="danger" disabled={remove.isPending} onClick={() => removing && remove.mutate(removing)}>
              {remove.isPending ? "Retrait…" : "Retirer le membre"}
            </Button>
          </>
        }
      >
        {removing && (
          <div className="space-y-3 text-sm">
            <p>
              {removing.name} ({removing.email}, {roleLabels[removing.role].toLowerCase()}) perdra l’accès à la console.
              Ses décisions passées restent dans l’historique. Pour lui rendre l’accès, il faudra l’inviter à nouveau.
            </p>
            {removeError && (
              <p role="alert" className="font-medium text-red-700">
                {removeError}
              </p>
            )}
          </div>
        )}
      </Drawer>
    </>
  );
}
