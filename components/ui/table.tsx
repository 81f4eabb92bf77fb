import type { ReactNode, ThHTMLAttributes, TdHTMLAttributes } from "react";

/**
 * `stacked`: below `md` each row becomes a card (cells one under the other,
 * each with its `Td label`), so a phone never scrolls a table sideways; the
 * header row stays for screen readers.
 */
export function Table({
  caption,
  children,
  stacked = false,
}: {
  caption: string;
  children: ReactNode;
  stacked?: boolean;
}) {
  return (
    // Wide tables scroll inside their own region, reachable with the keyboard, never the page.
    <div
      role="region"
      aria-label={caption}
      tabIndex={0}
      className="max-w-full min-w-0 overflow-x-auto rounded-lg border border-slate-200 bg-white focus-visible:outline-2 focus-visible:outline-brand-600"
    >
      <table
        className={`min-w-full divide-y divide-slate-200 text-sm ${stacked ? "max-md:block max-md:[&_tbody]:block max-md:[&_td]:block max-md:[&_thead]:sr-only max-md:[&_tr]:block max-md:[&_tr]:py-2" : ""}`}
      >
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

/** `label`: the column's name, shown before the value only where a `stacked` table turns rows into cards. */
export function Td({
  className = "",
  label,
  children,
  ...props
}: TdHTMLAttributes<HTMLTableCellElement> & { label?: string }) {
  return (
    <td className={`px-4 py-2 align-top max-md:py-1 ${className}`} {...props}>
      {label && (
        <span aria-hidden className="block text-xs font-semibold tracking-wide text-slate-500 uppercase md:hidden">
          {label}
        </span>
      )}
      {children}
    </td>
  );
}
