import type { ComponentPropsWithoutRef, ElementType } from "react";

const paddings = { none: "", sm: "p-4", md: "p-5" } as const;

/** The console's white, bordered panel; `as` keeps the element the content calls for (section, figure, li…). */
export function Card<T extends ElementType = "div">({
  as,
  padding = "md",
  className = "",
  ...props
}: { as?: T; padding?: keyof typeof paddings } & ComponentPropsWithoutRef<T>) {
  const Tag: ElementType = as ?? "div";
  return (
    <Tag
      className={`rounded-lg border border-slate-200 bg-white ${paddings[padding]} ${className}`.trim()}
      {...props}
    />
  );
}

/** A card of plain text: why a page shows nothing to this role, a note beside a form. */
export function NoticeCard({ className = "", ...props }: ComponentPropsWithoutRef<"p">) {
  return <Card as="p" padding="none" className={`px-5 py-4 text-sm text-slate-700 ${className}`.trim()} {...props} />;
}
