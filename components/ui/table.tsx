import type { ReactNode, ThHTMLAttributes, TdHTMLAttributes } from "react";

export function Table({ caption, children }: { caption: string; children: ReactNode }) {
  return (
    // Wide tables scroll inside their own region, reachable with the keyboard, never the page.
    <div
      role="region"
      aria-label={caption}
      tabIndex={0}
      className="max-w-full min-w-0 overflow-x-auto rounded-lg border border-slate-200 bg-white focus-visible:outline-2 focus-visible:outline-brand-600"
    >
      <table className="min-w-full divide-y divide-slate-200 text-sm">
        <caption className="sr-only">{caption}</caption>
        {children}
      </table>
    </div>
  );
}

export function Th({ className = "", ...props }: ThHTMLAttributes<HTMLTableCellElement>) {
  return (
    <th
      scope="col"
      className={`bg-slate-50 px-4 py-2 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase ${className}`}
      {...props}
    />
  );
}

export function Td({ className = "", ...props }: TdHTMLAttributes<HTMLTableCellElement>) {
  return <td className={`px-4 py-2 align-top ${className}`} {...props} />;
}
