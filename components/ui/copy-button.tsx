"use client";

import { Copy } from "lucide-react";
import type { ReactNode } from "react";
import { useSyncExternalStore } from "react";
import { toast } from "sonner";
import { Button } from "./button";

const noSubscription = () => () => undefined;

/** The origin the console is served from, for ready-to-paste URLs (a placeholder while rendering on the server). */
export function usePageOrigin(): string {
  return useSyncExternalStore(
    noSubscription,
    () => window.location.origin,
    () => "https://guichet.example",
  );
}

/** Copies `text` to the clipboard and says so with `confirmation` (French, e.g. « Commande copiée. »). */
export function CopyButton({
  text,
  confirmation,
  label = "Copier",
  ariaLabel,
}: {
  text: string;
  confirmation: string;
  label?: ReactNode;
  ariaLabel?: string;
}) {
  return (
    <Button
      variant="secondary"
      className="px-2 py-1 text-xs"
      aria-label={ariaLabel}
      onClick={() => {
        void navigator.clipboard?.writeText(text);
        toast.success(confirmation);
      }}
    >
      <Copy size={12} /> {label}
    </Button>
  );
}
