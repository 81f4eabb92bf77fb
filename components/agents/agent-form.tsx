"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { toast } from "sonner";
import type { CatalogEntry } from "@/components/catalog/labels";
import { Button } from "@/components/ui/button";
import { Field, TextArea, TextField } from "@/components/ui/field";
import type { AgentObject } from "@/lib/agents/schemas";
import { ApiClientError } from "@/lib/client/errors";
import type { ModelObject } from "@/lib/models/schemas";
import { JsonField, parseJsonText } from "./json-field";
import { fieldErrors } from "./messages";
import { agentKeys, saveAgent, type AgentWrite } from "./queries";
import { TemperatureField } from "./temperature-field";
import { ToolPicker } from "./tool-picker";

interface Draft {
  name: string;
  instructions: string;
  model: string;
  temperature: string;
  tools: string[];
  active: boolean;
  trace: boolean;
  outputSchema: string;
  clientTools: string;
}

function draftOf(agent: AgentObject | null): Draft {
  return {
    name: agent?.name ?? "",
    instructions: agent?.instructions ?? "",
    model: agent?.model ?? "",
    temperature: String(agent?.temperature ?? 0.3),
    tools: agent?.tools ?? [],
    active: agent?.active ?? true,
    trace: agent?.trace === "redacted",
    outputSchema: agent?.output_schema ? JSON.stringify(agent.output_schema, null, 2) : "",
    clientTools: agent?.client_tools.length ? JSON.stringify(agent.client_tools, null, 2) : "",
  };
}

const schemaExample = {
  type: "object",
  properties: { answer: { type: "string" }, sources: { type: "array", items: { type: "string" } } },
  required: ["answer"],
};
const clientToolsExample = [
  {
    name: "lookup_order",
    description: "Finds an order in our back office.",
    parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
  },
];

/** The body to send: everything on create; on edit only what changed, so untouched fields cannot be refused. */
function bodyOf(draft: Draft, agent: AgentObject | null, canTrace: boolean): AgentWrite | string {
  const schema = parseJsonText(draft.outputSchema, "object");
  const clientTools = parseJsonText(draft.clientTools, "array");
  if (schema.problem || clientTools.problem) return "Corrigez le JSON signalé avant d’enregistrer.";
  const full: AgentWrite = {
    name: draft.name,
    instructions: draft.instructions === "" ? null : draft.instructions,
    model: draft.model === "" ? null : draft.model,
    temperature: draft.temperature.trim() === "" ? Number.NaN : Number(draft.temperature),
    tools: draft.tools,
    active: draft.active,
    output_schema: (schema.value as Record<string, unknown> | null) ?? null,
    client_tools: clientTools.value ?? [],
    // Sent only by those allowed to change it (the API refuses the field from anyone else).
    ...(canTrace && { trace: draft.trace ? "redacted" : "off" }),
  };
  if (Number.isNaN(full.temperature)) return "Indiquez une température entre 0 et 2.";
  if (!agent) return full;
  const before = bodyOfSaved(agent);
  return Object.fromEntries(
    Object.entries(full).filter(
      ([key, value]) => JSON.stringify(value) !== JSON.stringify(before[key as keyof AgentWrite]),
    ),
  ) as AgentWrite;
}

function bodyOfSaved(agent: AgentObject): AgentWrite {
  return {
    name: agent.name,
    instructions: agent.instructions || null,
    model: agent.model,
    temperature: agent.temperature,
    tools: agent.tools,
    active: agent.active,
    output_schema: agent.output_schema,
    client_tools: agent.client_tools,
    trace: agent.trace,
  };
}

/** Every field of an agent, with the server's refusals shown under the field they name. */
export function AgentForm({
  agent,
  catalog,
  models,
  canWrite,
  canTrace,
  onSaved,
}: {
  agent: AgentObject | null;
  catalog: CatalogEntry[];
  models: ModelObject[];
  canWrite: boolean;
  canTrace: boolean;
  onSaved: (agent: AgentObject) => void;
}) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => draftOf(agent));
  const [serverError, setServerError] = useState<ApiClientError>();
  const [formProblem, setFormProblem] = useState<string>();
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const readOnly = !canWrite;

  const save = useMutation({
    mutationFn: (body: AgentWrite) => saveAgent(agent?.id ?? null, body),
    onSuccess: ({ data }) => {
      setServerError(undefined);
      setDraft(draftOf(data));
      queryClient.setQueryData(agentKeys.detail(data.id), data);
      void queryClient.invalidateQueries({ queryKey: agentKeys.list() });
      toast.success(agent ? "Agent enregistré." : "Agent créé.");
      onSaved(data);
    },
    onError: (error) =>
      setServerError(error instanceof ApiClientError ? error : new ApiClientError(0, "network_error", error.message)),
  });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const body = bodyOf(draft, agent, canTrace);
    if (typeof body === "string") return setFormProblem(body);
    setFormProblem(undefined);
    save.mutate(body);
  }

  const error = (field: string) => fieldErrors(serverError, field);
  const general = serverError && serverError.errors.length === 0 ? serverError.message : formProblem;
  const savedModelOutsidePlan = agent?.model && !models.some((m) => m.id === agent.model);
  const defaultModel = models.find((m) => m.default);

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-5" aria-label="Agent">
      {general && (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
          {general}
        </p>
      )}
      <TextField
        label="Nom"
        error={error("name")}
        value={draft.name}
        onChange={(e) => set("name", e.target.value)}
        maxLength={100}
        disabled={readOnly}
        placeholder="Assistant support"
      />
      <Field
        label="Instructions"
        error={error("instructions")}
        hint={`Ajoutées à chaque run, avant celles de l’appel. ${draft.instructions.length.toLocaleString("fr-FR")} / 20 000 caractères.`}
      >
        {({ id, describedBy, invalid }) => (
          <TextArea
            id={id}
            value={draft.instructions}
            onChange={(e) => set("instructions", e.target.value)}
            rows={5}
            disabled={readOnly}
            aria-describedby={describedBy}
            invalid={invalid}
          />
        )}
      </Field>
      <Field label="Modèle" error={error("model")}>
        {({ id, describedBy, invalid }) => (
          <select
            id={id}
            value={draft.model}
            onChange={(e) => set("model", e.target.value)}
            disabled={readOnly}
            aria-describedby={describedBy}
            aria-invalid={invalid || undefined}
            className="block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm aria-[invalid=true]:border-red-500"
          >
            <option value="">Modèle par défaut de la formule{defaultModel ? ` (${defaultModel.name})` : ""}</option>
            {models.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name} — {m.provider}
                {m.structured_output ? " · sortie structurée" : " · sans sortie structurée"}
              </option>
            ))}
            {savedModelOutsidePlan && <option value={agent.model!}>{agent.model} (hors de votre formule)</option>}
          </select>
        )}
      </Field>
      <TemperatureField
        value={draft.temperature}
        onChange={(t) => set("temperature", t)}
        error={error("temperature")}
        disabled={readOnly}
      />
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          checked={draft.active}
          onChange={(e) => set("active", e.target.checked)}
          disabled={readOnly}
        />
        Agent actif <span className="text-xs text-slate-500">(un agent inactif refuse tout run)</span>
      </label>
      <label className="flex items-start gap-2 text-sm">
        <input
          type="checkbox"
          checked={draft.trace}
          onChange={(e) => set("trace", e.target.checked)}
          disabled={readOnly || !canTrace}
          className="mt-1"
        />
        <span>
          Tracer les runs (données expurgées)
          <span className="block text-xs text-slate-500">
            Chaque run garde ses appels d’outils, avec e-mails, téléphones, IBAN et secrets remplacés par des valeurs de
            même forme, pour rejouer les appels contre une nouvelle version d’un outil.
            {!canTrace && " Seuls les propriétaires et administrateurs peuvent le changer."}
          </span>
          {error("trace") && (
            <span role="alert" className="block text-xs text-red-700">
              {error("trace")}
            </span>
          )}
        </span>
      </label>
      <ToolPicker
        catalog={catalog}
        value={draft.tools}
        saved={agent?.tools ?? []}
        onChange={(tools) => set("tools", tools)}
        disabled={readOnly}
        error={error("tools")}
      />
      <JsonField
        label="Schéma de sortie (JSON Schema)"
        value={draft.outputSchema}
        onChange={(t) => set("outputSchema", t)}
        shape="object"
        example={schemaExample}
        disabled={readOnly}
        hint="Vide : pas de sortie structurée. Demande un modèle qui garantit la sortie structurée."
        serverError={error("output_schema")}
      />
      <JsonField
        label="Outils client (JSON)"
        value={draft.clientTools}
        onChange={(t) => set("clientTools", t)}
        shape="array"
        example={clientToolsExample}
        disabled={readOnly}
        hint="20 au plus, chacun {name, description, parameters}. Le run se met en pause quand le modèle en appelle un."
        serverError={error("client_tools")}
      />
      {canWrite && (
        <div className="sticky bottom-0 -mx-6 flex justify-end border-t border-slate-200 bg-white px-6 py-3">
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? "Enregistrement…" : agent ? "Enregistrer" : "Créer l’agent"}
          </Button>
        </div>
      )}
    </form>
  );
}
