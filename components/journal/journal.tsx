"use client";

import { RunsPanel } from "./runs-panel";
import { TelemetryPanel } from "./telemetry-panel";

/** Contrôle › Journal: runs and their steps, then the telemetry of the last day. */
export function Journal({ canWrite, memberId }: { canWrite: boolean; memberId: string }) {
  return (
    <div className="space-y-10">
      <RunsPanel canWrite={canWrite} memberId={memberId} />
      <TelemetryPanel />
    </div>
  );
}
