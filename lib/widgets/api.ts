import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import {
  WidgetConversationDetail,
  WidgetConversationObject,
  WidgetConversationParams,
  WidgetCreateBody,
  WidgetListQuery,
  WidgetObject,
  WidgetParams,
  WidgetUpdateBody,
  WidgetWithSecret,
} from "./schemas";

export * from "./schemas";

// A widget exposes an agent to the organization's own visitors: creating and
// changing one is an agent change (agents:write); reading it, an agent read.
const readScopes = ["agents:read"] as const;
const writeScopes = ["agents:write"] as const;
const tag = "Widgets";

export const listWidgetsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/widgets",
  tag,
  summary: "List the organization's widgets, newest first (never their signing secrets)",
  auth: "both",
  scopes: [...readScopes],
  query: WidgetListQuery,
  response: z.object({ data: z.array(WidgetObject), next_cursor: z.string().nullable() }),
});

export const createWidgetEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/widgets",
  tag,
  summary: "Create a widget on an agent; its signing secret is returned once",
  auth: "both",
  scopes: [...writeScopes],
  body: WidgetCreateBody,
  status: 201,
  idempotencyReplay: "secret",
  response: z.object({ data: WidgetWithSecret }),
  errors: ["not_found", "idempotency_secret_not_replayable"],
});

export const getWidgetEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/widgets/{widget}",
  tag,
  summary: "One widget, with its usage counts",
  auth: "both",
  scopes: [...readScopes],
  params: WidgetParams,
  response: z.object({ data: WidgetObject }),
  errors: ["not_found"],
});

export const updateWidgetEndpoint = defineEndpoint({
  method: "PATCH",
  path: "/v1/widgets/{widget}",
  tag,
  summary: "Change a widget; only the fields sent change (appearance and limits field by field)",
  auth: "both",
  scopes: [...writeScopes],
  params: WidgetParams,
  body: WidgetUpdateBody,
  response: z.object({ data: WidgetObject }),
  errors: ["not_found"],
});

export const deleteWidgetEndpoint = defineEndpoint({
  method: "DELETE",
  path: "/v1/widgets/{widget}",
  tag,
  summary: "Delete a widget and its conversations; its runs stay in the journal",
  auth: "both",
  scopes: [...writeScopes],
  params: WidgetParams,
  response: z.object({ data: z.object({ id: z.string(), deleted: z.literal(true) }) }),
  errors: ["not_found"],
});

export const rotateWidgetPublicKeyEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/widgets/{widget}/rotate_public_key",
  tag,
  summary: "Replace the public key: pages with the old snippet stop reaching the agent at once",
  auth: "both",
  scopes: [...writeScopes],
  params: WidgetParams,
  response: z.object({ data: WidgetObject }),
  errors: ["not_found"],
});

export const rotateWidgetSecretEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/widgets/{widget}/rotate_signing_secret",
  tag,
  summary: "Replace the signing secret; the new one is returned once and tokens signed with the old one are refused",
  auth: "both",
  scopes: [...writeScopes],
  params: WidgetParams,
  idempotencyReplay: "secret",
  response: z.object({ data: WidgetWithSecret }),
  errors: ["not_found", "idempotency_secret_not_replayable"],
});

export const listWidgetConversationsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/widgets/{widget}/conversations",
  tag,
  summary: "The widget's visitor conversations, newest first (read-only)",
  auth: "both",
  scopes: [...readScopes],
  params: WidgetParams,
  query: WidgetListQuery,
  response: z.object({ data: z.array(WidgetConversationObject), next_cursor: z.string().nullable() }),
  errors: ["not_found"],
});

export const getWidgetConversationEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/widgets/{widget}/conversations/{conversation}",
  tag,
  summary: "One conversation: each visitor message with its run and the answer",
  auth: "both",
  scopes: [...readScopes],
  params: WidgetConversationParams,
  response: z.object({ data: WidgetConversationDetail }),
  errors: ["not_found"],
});
