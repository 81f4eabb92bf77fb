"use client";

import { useQuery, type QueryClient } from "@tanstack/react-query";
import { call, callAllPages } from "@/lib/client/call";
import {
  createWidgetEndpoint,
  getWidgetConversationEndpoint,
  listWidgetConversationsEndpoint,
  listWidgetsEndpoint,
  rotateWidgetPublicKeyEndpoint,
  rotateWidgetSecretEndpoint,
  updateWidgetEndpoint,
  type WidgetCreateBody,
  type WidgetObject,
  type WidgetUpdateBody,
} from "@/lib/widgets/api";

// Widgets' reads and writes; every key under ["widgets"] is built here.
export const widgetKeys = {
  all: ["widgets"] as const,
  list: () => [...widgetKeys.all, "list"] as const,
  conversations: (widgetId: string) => [...widgetKeys.all, "conversations", widgetId] as const,
  conversation: (widgetId: string, conversationId: string) =>
    [...widgetKeys.all, "conversation", widgetId, conversationId] as const,
};

export function useWidgets() {
  return useQuery({
    queryKey: widgetKeys.list(),
    queryFn: ({ signal }) => callAllPages(listWidgetsEndpoint, { signal }),
  });
}

/**
 * A widget as the API just answered it, put in the list at once (same shape as the list's rows), then the
 * list read again: what depends on the stored widget (its « Aperçu ») follows without waiting for the refetch.
 */
export function storeWidget(queryClient: QueryClient, widget: WidgetObject) {
  queryClient.setQueryData<WidgetObject[]>(widgetKeys.list(), (rows) =>
    rows?.map((row) => (row.id === widget.id ? widget : row)),
  );
  void queryClient.invalidateQueries({ queryKey: widgetKeys.list() });
}

export function useWidgetConversations(widgetId: string) {
  return useQuery({
    queryKey: widgetKeys.conversations(widgetId),
    queryFn: ({ signal }) =>
      call(listWidgetConversationsEndpoint, { params: { widget: widgetId }, query: { limit: 20 }, signal }).then(
        (page) => page.data,
      ),
  });
}

export function useWidgetConversation(widgetId: string, conversationId: string) {
  return useQuery({
    queryKey: widgetKeys.conversation(widgetId, conversationId),
    queryFn: ({ signal }) =>
      call(getWidgetConversationEndpoint, { params: { widget: widgetId, conversation: conversationId }, signal }).then(
        (r) => r.data,
      ),
  });
}

/** The answer carries the signing secret, shown once. */
export function createWidget(body: WidgetCreateBody) {
  return call(createWidgetEndpoint, { body }).then((r) => r.data);
}

export function updateWidget(id: string, body: WidgetUpdateBody) {
  return call(updateWidgetEndpoint, { params: { widget: id }, body }).then((r) => r.data);
}

export function rotateWidgetPublicKey(id: string) {
  return call(rotateWidgetPublicKeyEndpoint, { params: { widget: id } }).then((r) => r.data);
}

/** The answer carries the new secret, shown once. */
export function rotateWidgetSecret(id: string) {
  return call(rotateWidgetSecretEndpoint, { params: { widget: id } }).then((r) => r.data);
}
