"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { useState, type ReactNode } from "react";
import { Button } from "./button";

/**
 * A button whose action is asked again in a dialog of the console's own
 * (never `window.confirm`, which the browser styles, cannot be translated and
 * a page can suppress): the question as its title, what follows as its
 * description, « Annuler » and the confirming action.
 */
export function ConfirmButton({
  children,
  question,
  detail,
  confirmLabel,
  onConfirm,
  variant = "secondary",
  className,
  disabled,
}: {
  /** The button's own label. */
  children: ReactNode;
  question: string;
  detail: string;
  confirmLabel: string;
  onConfirm: () => void;
  variant?: "secondary" | "ghost" | "danger";
  className?: string;
  disabled?: boolean;
}) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger asChild>
        <Button variant={variant} className={className} disabled={disabled}>
          {children}
        </Button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-slate-900/30" />
        <Dialog.Content
          role="alertdialog"
          className="fixed top-1/2 left-1/2 z-50 w-[calc(100%-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-lg bg-white p-5 shadow-xl focus:outline-none"
        >
          <Dialog.Title className="text-base font-semibold text-slate-900">{question}</Dialog.Title>
          <Dialog.Description className="mt-2 text-sm text-slate-600">{detail}</Dialog.Description>
          <div className="mt-5 flex justify-end gap-2">
            <Dialog.Close asChild>
              <Button variant="ghost">Annuler</Button>
            </Dialog.Close>
            <Button
              variant="danger"
              onClick={() => {
                setOpen(false);
                onConfirm();
              }}
            >
              {confirmLabel}
            </Button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
