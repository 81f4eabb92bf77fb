import type { ReactNode } from "react";

/**
 * An error shown where it happened and announced to screen readers: `small` under a field or a table
 * row, otherwise a form's or a list's.
 */
export function ErrorText({
  children,
  small = false,
  id,
  className,
}: {
  children: ReactNode;
  small?: boolean;
  id?: string;
  className?: string;
}) {
  const size = small ? "text-xs font-medium" : "text-sm";
  return (
    <p id={id} role="alert" className={[className, size, "text-red-700"].filter(Boolean).join(" ")}>
      {children}
    </p>
  );
}
