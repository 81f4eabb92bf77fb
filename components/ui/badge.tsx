import type { ReactNode } from "react";

const tones = {
  neutral: "bg-slate-100 text-slate-700",
  success: "bg-emerald-100 text-emerald-800",
  warning: "bg-amber-100 text-amber-800",
  danger: "bg-red-100 text-red-800",
  info: "bg-brand-100 text-brand-700",
} as const;

export function Badge({
  tone = "neutral",
  children,
  testId,
}: {
  tone?: keyof typeof tones;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <span
      className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ${tones[tone]}`}
      data-testid={testId}
    >
      {children}
    </span>
  );
}
