import { env } from "@/lib/env";

// One structured line per event on stdout. Callers pass ids, codes and hashes —
// never raw arguments, results or secrets.
const levels = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = Exclude<keyof typeof levels, "silent">;

// Lines below `error` are written together once per turn of the event loop: a
// synchronous write per line (stdout on a pipe or a file is synchronous) was a
// tenth of a tool call's CPU under load (docs/hot-path-profile.md). An error
// line is written at once, after what was pending, and what is pending when
// the process exits is written then.
let pending = "";
let scheduled = false;
let hooked = false;

function flush() {
  scheduled = false;
  if (!pending) return;
  const out = pending;
  pending = "";
  process.stdout.write(out);
}

export function log(level: LogLevel, event: string, fields: Record<string, unknown> = {}): void {
  if (levels[level] < levels[env.GUICHET_LOG_LEVEL]) return;
  const line = JSON.stringify({ level, event, ...fields });
  if (level === "error") {
    flush();
    console.error(line);
    return;
  }
  pending += line + "\n";
  if (!hooked) {
    hooked = true;
    process.once("exit", flush);
  }
  if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
}
