// The result view: the fields of a tool's result allowed to leave the adapter.
// Applied after output validation, so a field the schema tolerates but the task
// does not need (a secret, an internal flag, unrelated personal data) is cut
// before anything reaches the caller, the logs or a debug payload.

type ViewTree = Map<string, ViewTree | true>;

function unescape(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

export function buildView(pointers: readonly string[]): ViewTree | true {
  const root: ViewTree = new Map();
  for (const pointer of pointers) {
    if (pointer === "" || pointer === "/") return true;
    const segments = pointer.split("/").slice(1).map(unescape);
    let node: ViewTree = root;
    segments.forEach((segment, index) => {
      const last = index === segments.length - 1;
      const existing = node.get(segment);
      if (existing === true) return;
      if (last) {
        node.set(segment, true);
        return;
      }
      const child: ViewTree = existing ?? new Map();
      node.set(segment, child);
      node = child;
    });
  }
  return root;
}

function project(value: unknown, view: ViewTree | true): unknown {
  if (view === true) return value;
  if (Array.isArray(value)) return value.map((item) => project(item, view));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [name, sub] of view) {
    if (Object.prototype.hasOwnProperty.call(value, name)) out[name] = project((value as Record<string, unknown>)[name], sub);
  }
  return out;
}

/** Keeps only the fields named by the view's pointers (arrays are walked through item by item). */
export function applyResultView(result: unknown, pointers: readonly string[]): unknown {
  return project(result, buildView(pointers));
}

/** The top-level fields an output schema declares: the default view of a tool whose every field is meant for the task. */
export function declaredFields(outputSchema: Record<string, unknown>): string[] {
  const properties = outputSchema.properties;
  if (!properties || typeof properties !== "object") return [""];
  return Object.keys(properties).map((name) => `/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`);
}
