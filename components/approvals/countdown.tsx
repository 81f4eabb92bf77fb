"use client";

import { useEffect, useState } from "react";
import { formatRemaining } from "./format";

/** The time now, ticking every second: lists drop what expires without waiting for the server. */
export function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/** Milliseconds left until `expiresAt`, ticking every second; 0 once past. */
export function useRemaining(expiresAt: string): number {
  const deadline = new Date(expiresAt).getTime();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => {
      const tick = Date.now();
      setNow(tick);
      if (tick >= deadline) clearInterval(timer);
    }, 1_000);
    return () => clearInterval(timer);
  }, [deadline]);
  return Math.max(0, deadline - now);
}

export function Countdown({ remainingMs }: { remainingMs: number }) {
  const urgent = remainingMs > 0 && remainingMs < 5 * 60_000;
  return (
    <span
      className={`tabular-nums ${remainingMs === 0 ? "text-slate-500" : urgent ? "font-semibold text-red-700" : "text-slate-700"}`}
      data-testid="countdown"
    >
      {remainingMs === 0 ? "Expirée" : `Expire dans ${formatRemaining(remainingMs)}`}
    </span>
  );
}

/** A self-ticking countdown for lists. */
export function ExpiryCountdown({ expiresAt }: { expiresAt: string }) {
  return <Countdown remainingMs={useRemaining(expiresAt)} />;
}
