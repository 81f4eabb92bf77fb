import { zodToOpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import type { z } from "zod";
import { AgentCreateBody, AgentObject, AgentUpdateBody, ClientToolDefinition } from "@/lib/agents/api";
import { ApiKeyCreateBody, ApiKeyObject } from "@/lib/api-keys/api";
import { CatalogEntryObject, CatalogToolObject } from "@/lib/catalog/api";
import { ContractObject } from "@/lib/contracts/api";
import { ToolCallBody, ToolEnvelopeObject } from "@/lib/dispatch/api";
import { FileObject } from "@/lib/files/api";
import { McpServerCreateBody, McpServerObject, McpServerUpdateBody, McpToolObject, McpToolUpdateBody, SyncSummaryObject } from "@/lib/mcp/api";
import { ModelObject } from "@/lib/models/api";
import { OperationObject, ResolveBody } from "@/lib/operations/api";
import { PolicyPutBody, PolicyTableObject } from "@/lib/policies/api";
import { ApproveBody, DecisionObject, ProposalObject, RefuseBody } from "@/lib/proposals/api";
import { RunCreateBody, RunObject } from "@/lib/runs/api";
import { StepObject } from "@/lib/runs/step-object";
import { TelemetryObject } from "@/lib/telemetry/api";
import { ErrorEnvelope } from "./error-envelope";

// The schemas published as named components (#/components/schemas/Name), so a
// generated client gets one reusable type per object instead of an inline copy
// per operation. Naming happens here, on the very schema instances the endpoint
// declarations use, so the domains' files stay free of OpenAPI concerns.
const named: [string, z.ZodType][] = [
  ["Agent", AgentObject],
  ["AgentCreate", AgentCreateBody],
  ["AgentUpdate", AgentUpdateBody],
  ["ClientTool", ClientToolDefinition],
  ["ApiKey", ApiKeyObject],
  ["ApiKeyCreate", ApiKeyCreateBody],
  ["CatalogEntry", CatalogEntryObject],
  ["CatalogTool", CatalogToolObject],
  ["Contract", ContractObject],
  ["ToolCall", ToolCallBody],
  ["ToolCallEnvelope", ToolEnvelopeObject],
  ["File", FileObject],
  ["McpServer", McpServerObject],
  ["McpServerCreate", McpServerCreateBody],
  ["McpServerUpdate", McpServerUpdateBody],
  ["McpTool", McpToolObject],
  ["McpToolUpdate", McpToolUpdateBody],
  ["McpSyncSummary", SyncSummaryObject],
  ["Model", ModelObject],
  ["Operation", OperationObject],
  ["OperationResolve", ResolveBody],
  ["Policy", PolicyTableObject],
  ["PolicyPut", PolicyPutBody],
  ["Proposal", ProposalObject],
  ["ProposalApprove", ApproveBody],
  ["ProposalRefuse", RefuseBody],
  ["Decision", DecisionObject],
  ["Run", RunObject],
  ["RunCreate", RunCreateBody],
  ["Step", StepObject],
  ["Telemetry", TelemetryObject],
  ["Error", ErrorEnvelope],
];

let done = false;

/** Gives each schema above its component name (once per process). */
export function nameComponents(): void {
  if (done) return;
  done = true;
  for (const [name, schema] of named) {
    const current = zodToOpenAPIRegistry.get(schema) ?? {};
    zodToOpenAPIRegistry.add(schema, { ...current, _internal: { ...current._internal, refId: name } });
  }
}

export const componentNames = named.map(([name]) => name);
