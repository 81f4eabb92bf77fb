"use client";

import { usePendingCount } from "./queries";

/** The number of proposals waiting for a decision, beside "Approbations" in the navigation. */
export function PendingApprovalsBadge() {
  const count = usePendingCount();
  if (!count.data) return null;
  return (
    <span
      className="ml-auto rounded-full bg-amber-100 px-2 text-xs font-semibold text-amber-800 tabular-nums"
      data-testid="pending-count"
    >
      {count.data}
      <span className="sr-only"> en attente</span>
    </span>
  );
}
