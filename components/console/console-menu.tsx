"use client";

import { Menu, X } from "lucide-react";
import { usePathname } from "next/navigation";
import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from "react";

/**
 * The console's side column. From `md` up it is always shown; below, only its
 * header and a menu button are, so that a page opened on a phone (a proposal's
 * link from an e-mail) starts on the first screen. The menu closes by itself
 * on navigation (it remembers the page it was opened on) and on Escape, which
 * gives the focus back to the button.
 */
export function ConsoleMenu({ header, children }: { header: ReactNode; children: ReactNode }) {
  const pathname = usePathname();
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const panelId = useId();
  const button = useRef<HTMLButtonElement>(null);

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (event.key === "Escape" && open) {
      setOpenOn(null);
      button.current?.focus();
    }
  }

  return (
    <div onKeyDown={onKeyDown}>
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0">{header}</div>
        <button
          ref={button}
          type="button"
          className="inline-flex shrink-0 items-center gap-2 rounded-md border border-slate-300 px-3 py-1.5 text-sm font-medium text-slate-800 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-brand-600 md:hidden"
          aria-expanded={open}
          aria-controls={panelId}
          onClick={() => setOpenOn(open ? null : pathname)}
        >
          {open ? <X aria-hidden className="size-4" /> : <Menu aria-hidden className="size-4" />}
          Menu
        </button>
      </div>
      <div id={panelId} className={open ? "block" : "hidden md:block"}>
        {children}
      </div>
    </div>
  );
}
