"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { FileText, Trash2, Upload } from "lucide-react";
import { useRef, useState } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { endpointUrl } from "@/lib/client/call";
import { ApiClientError } from "@/lib/client/errors";
import { getFileContentEndpoint } from "@/lib/files/api";
import { formatBytes, uploadErrorText } from "./messages";
import { agentKeys, deleteDocument, uploadDocument, useDocuments } from "./queries";
import { ErrorText } from "@/components/ui/error-text";

const MAX_DOCUMENTS = 20;
const dateFormat = new Intl.DateTimeFormat("fr-FR", { dateStyle: "medium" });

/** The agent's knowledge documents: upload with a progress bar, delete with confirmation. */
export function DocumentsSection({ agentId, canWrite }: { agentId: string; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const documents = useDocuments(agentId);
  const input = useRef<HTMLInputElement>(null);
  const [progress, setProgress] = useState<{ name: string; fraction: number; abort: () => void } | null>(null);
  const [uploadError, setUploadError] = useState<string>();
  const [confirming, setConfirming] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: agentKeys.documents(agentId) });

  const remove = useMutation({
    mutationFn: (fileId: string) => deleteDocument(agentId, fileId),
    onSuccess: () => {
      setConfirming(null);
      toast.success("Document supprimé.");
      void refresh();
    },
    onError: (error) => toast.error(error.message),
  });

  async function send(file: File) {
    setUploadError(undefined);
    const upload = uploadDocument(agentId, file, (fraction) => setProgress((p) => (p ? { ...p, fraction } : p)));
    setProgress({ name: file.name, fraction: 0, abort: upload.abort });
    try {
      const stored = await upload.promise;
      toast.success(`« ${stored.filename} » ajouté.`);
      await refresh();
    } catch (error) {
      setUploadError(error instanceof ApiClientError ? uploadErrorText(error) : String(error));
    } finally {
      setProgress(null);
      if (input.current) input.current.value = "";
    }
  }

  const list = documents.data ?? [];
  const full = list.length >= MAX_DOCUMENTS;
  return (
    <section aria-labelledby="documents-title" className="space-y-3">
      <div className="flex items-baseline justify-between">
        <h3 id="documents-title" className="text-sm font-semibold">
          Documents de connaissance
        </h3>
        <span className="text-xs text-slate-500">
          {list.length} / {MAX_DOCUMENTS}
        </span>
      </div>
      <p className="text-xs text-slate-600">
        Lus par chaque run de l’agent avec les outils de fichiers. Sans expiration ; comptent dans le stockage de la
        formule.
      </p>
      {documents.isError && <ErrorText>{documents.error.message}</ErrorText>}
      {list.length > 0 && (
        <ul className="divide-y divide-slate-100 rounded-md border border-slate-200">
          {list.map((doc) => (
            <li key={doc.id} className="flex flex-wrap items-center gap-2 px-3 py-2 text-sm">
              <FileText size={14} aria-hidden className="text-slate-500" />
              <a
                href={endpointUrl(getFileContentEndpoint, { file: doc.id })}
                className="font-medium text-brand-700 hover:underline"
              >
                {doc.filename}
              </a>
              <span className="text-xs text-slate-500">
                {doc.mime_type} · {formatBytes(doc.bytes)} · {dateFormat.format(new Date(doc.created_at))}
              </span>
              {canWrite &&
                (confirming === doc.id ? (
                  <span className="ml-auto flex items-center gap-2">
                    <span className="text-xs">Supprimer ce document ?</span>
                    <Button
                      variant="danger"
                      className="px-2 py-1 text-xs"
                      disabled={remove.isPending}
                      onClick={() => remove.mutate(doc.id)}
                    >
                      Supprimer
                    </Button>
                    <Button variant="ghost" className="px-2 py-1 text-xs" onClick={() => setConfirming(null)}>
                      Annuler
                    </Button>
                  </span>
                ) : (
                  <Button
                    variant="ghost"
                    className="ml-auto px-2 py-1"
                    aria-label={`Supprimer ${doc.filename}`}
                    onClick={() => setConfirming(doc.id)}
                  >
                    <Trash2 size={14} />
                  </Button>
                ))}
            </li>
          ))}
        </ul>
      )}
      {canWrite && (
        <div className="space-y-2">
          <input
            ref={input}
            id={`documents-${agentId}`}
            type="file"
            className="sr-only"
            disabled={full || progress !== null}
            accept=".txt,.md,.markdown,.csv,.json,.pdf,text/plain,text/markdown,text/csv,application/json,application/pdf"
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (file) void send(file);
            }}
          />
          <label
            htmlFor={`documents-${agentId}`}
            className={`inline-flex cursor-pointer items-center gap-2 rounded-md border border-slate-300 bg-white px-3 py-2 text-sm font-medium hover:bg-slate-50 ${full || progress ? "pointer-events-none opacity-50" : ""}`}
          >
            <Upload size={14} aria-hidden /> Ajouter un document
          </label>
          {full && (
            <p className="text-xs text-slate-600">20 documents au plus par agent : supprimez-en un pour en ajouter.</p>
          )}
          {progress && (
            <div className="space-y-1">
              <div className="flex justify-between text-xs text-slate-600">
                <span>Envoi de « {progress.name} »…</span>
                <button type="button" className="underline" onClick={progress.abort}>
                  Annuler
                </button>
              </div>
              <div
                role="progressbar"
                aria-label="Progression de l’envoi"
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={Math.round(progress.fraction * 100)}
                className="h-2 overflow-hidden rounded bg-slate-200"
              >
                <div
                  className="h-full bg-brand-600 transition-[width]"
                  style={{ width: `${Math.round(progress.fraction * 100)}%` }}
                />
              </div>
            </div>
          )}
          {uploadError && <ErrorText>{uploadError}</ErrorText>}
        </div>
      )}
    </section>
  );
}
