import { env } from "@/lib/env";

// One structured line per event on stdout. Callers pass ids, codes and hashes —
// never raw arguments, results or secrets.
const levels = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = Exclude<keyof typeof levels, "silent">;

export function log(level: LogLevel, event: string, fields: Record<string, unknown> = {}): void {
  if (levels[level] < levels[env.GUICHET_LOG_LEVEL]) return;
  const line = JSON.stringify({ level, event, ...fields });
  if (level === "error") console.error(line);
  else console.log(line);
}
