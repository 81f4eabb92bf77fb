// Walks over parsed JSON that never recurse, for values whose depth is not yet
// known to be small (tool-call arguments may nest hundreds of thousands of levels
// within the body size limit, far past the call stack of JSON.stringify).

/** True when arrays and objects nest deeper than `limit` (the top-level container is depth 1). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== "object") continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

type Frame = { entries: [string | null, unknown][]; index: number; close: string };

/** JSON.stringify for plain parsed JSON, at any depth (keys in their own order, undefined as in JSON.stringify). */
export function stringifyDeep(value: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const open = (item: unknown): void => {
    if (item === null || typeof item !== "object") {
      out.push(JSON.stringify(item) ?? "null");
      return;
    }
    const isArray = Array.isArray(item);
    const entries: [string | null, unknown][] = isArray
      ? (item as unknown[]).map((child) => [null, child])
      : Object.entries(item).filter(([, child]) => child !== undefined);
    out.push(isArray ? "[" : "{");
    stack.push({ entries, index: 0, close: isArray ? "]" : "}" });
  };
  open(value);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame.index === frame.entries.length) {
      out.push(frame.close);
      stack.pop();
      continue;
    }
    const [key, child] = frame.entries[frame.index];
    if (frame.index > 0) out.push(",");
    frame.index++;
    if (key !== null) out.push(`${JSON.stringify(key)}:`);
    open(child);
  }
  return out.join("");
}
