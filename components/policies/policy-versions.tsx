"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { PolicyTable } from "./policy-table";
import { usePolicyVersions } from "./queries";

const dateFormat = new Intl.DateTimeFormat("fr-FR", { dateStyle: "medium", timeStyle: "short" });

/** Every published version is kept: a proposal names the version of the rule that applied to it. */
export function PolicyVersions({ currentVersion }: { currentVersion: number }) {
  const versions = usePolicyVersions();
  const [shown, setShown] = useState<number | null>(null);
  const older = versions.data?.filter((v) => v.version !== currentVersion) ?? [];
  if (older.length === 0) return null;
  const selected = older.find((v) => v.version === shown);
  return (
    <section aria-labelledby="versions-title" className="space-y-3">
      <h2 id="versions-title" className="text-lg font-semibold">
        Versions précédentes
      </h2>
      <ul className="flex flex-wrap gap-2">
        {older.map((v) => (
          <li key={v.version}>
            <Button
              variant={shown === v.version ? "primary" : "secondary"}
              className="px-2 py-1 text-xs"
              onClick={() => setShown(shown === v.version ? null : v.version)}
              aria-pressed={shown === v.version}
            >
              v{v.version} · {dateFormat.format(new Date(v.created_at))}
            </Button>
          </li>
        ))}
      </ul>
      {selected && <PolicyTable rules={selected.rules} caption={`Table de politique, version ${selected.version}`} />}
    </section>
  );
}
