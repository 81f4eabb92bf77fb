"use client";

import type { WidgetObject } from "@/lib/widgets/schemas";

/**
 * The real bubble on Guichet's own preview page (lib/widgets/preview-page.ts).
 * The page is loaded again whenever the widget as stored changes (its
 * `updated_at`, from the widget list's query): a saved appearance shows at once.
 */
export function WidgetPreview({ widget }: { widget: Pick<WidgetObject, "id" | "name" | "updated_at"> }) {
  return (
    <iframe
      key={widget.updated_at}
      title={`Aperçu du widget ${widget.name}`}
      src={`/widgets/${encodeURIComponent(widget.id)}/apercu?v=${encodeURIComponent(widget.updated_at)}`}
      className="h-[680px] w-full rounded-md border bg-slate-50"
    />
  );
}
