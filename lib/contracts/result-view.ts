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
    for (const [index, segment] of segments.entries()) {
      const existing = node.get(segment);
      if (existing === true) break; // a parent already kept whole
      if (index === segments.length - 1) {
        node.set(segment, true);
        break;
      }
      const child: ViewTree = existing ?? new Map();
      node.set(segment, child);
      node = child;
    }
  }
  return root;
}

function project(value: unknown, view: ViewTree | true): unknown {
  if (view === true) return value;
  if (Array.isArray(value)) return value.map((item) => project(item, view));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [name, sub] of view) {
    if (Object.prototype.hasOwnProperty.call(value, name))
      out[name] = project((value as Record<string, unknown>)[name], sub);
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
  return Object.keys(properties).map(escapeSegment);
}

function escapeSegment(name: string): string {
  return `/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

type SchemaNode = Record<string, unknown>;
const MAX_VIEW_DEPTH = 10;

function asNode(value: unknown): SchemaNode | null {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as SchemaNode) : null;
}

/** Follows a local `$ref` (`#/$defs/x`, `#/definitions/x`); anything else is left as it is. */
function resolveRef(node: SchemaNode, root: SchemaNode): SchemaNode {
  const ref = node.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/")) return node;
  let target: unknown = root;
  for (const segment of ref.slice(2).split("/").map(unescape)) target = asNode(target)?.[segment];
  return asNode(target) ?? node;
}

/** The schemas a value at this node may match: the node itself and its allOf/anyOf/oneOf branches, flattened. */
function branches(node: SchemaNode, root: SchemaNode, depth: number): SchemaNode[] {
  const resolved = resolveRef(node, root);
  const out = [resolved];
  if (depth > MAX_VIEW_DEPTH) return out;
  for (const keyword of ["allOf", "anyOf", "oneOf"]) {
    const list = resolved[keyword];
    if (Array.isArray(list))
      for (const branch of list) if (asNode(branch)) out.push(...branches(branch as SchemaNode, root, depth + 1));
  }
  return out;
}

/**
 * Relative pointers to keep under one schema node: `[""]` keeps the value
 * whole (a scalar, or an object that declares no fields of its own such as a
 * free-form map); otherwise one pointer per declared field, at every depth,
 * and through the items of arrays.
 */
function viewUnder(node: SchemaNode, root: SchemaNode, depth: number): string[] {
  if (depth > MAX_VIEW_DEPTH) return [""];
  const shapes = branches(node, root, depth);
  const fields = new Map<string, SchemaNode[]>();
  const items: SchemaNode[] = [];
  let open = false;
  for (const shape of shapes) {
    const properties = asNode(shape.properties);
    if (properties)
      for (const [name, sub] of Object.entries(properties))
        fields.set(name, [...(fields.get(name) ?? []), asNode(sub) ?? {}]);
    if (asNode(shape.additionalProperties) || asNode(shape.patternProperties)) open = true;
    const itemSchemas: unknown[] = [shape.items, ...(Array.isArray(shape.prefixItems) ? shape.prefixItems : [])];
    for (const item of itemSchemas) {
      const schema = asNode(item);
      if (schema) items.push(schema);
    }
  }
  if (open || (fields.size === 0 && items.length === 0)) return [""];
  // An array's items are projected with the same view as the array itself, so their views are merged in.
  const itemView = items.flatMap((item) => viewUnder(item, root, depth + 1));
  if (itemView.includes("")) return [""];
  const fieldView = [...fields].flatMap(([name, subs]) => {
    const sub = subs.flatMap((schema) => viewUnder(schema, root, depth + 1));
    return sub.includes("") ? [escapeSegment(name)] : sub.map((rest) => `${escapeSegment(name)}${rest}`);
  });
  return [...new Set([...fieldView, ...itemView])];
}

/**
 * The fields an output schema declares at every depth — objects in objects and
 * the objects inside arrays — as result-view pointers. A field the server adds
 * anywhere in its answer is cut, not only at the top level. An object that
 * declares no fields (a free-form map) is kept whole: that is what its schema
 * promises.
 */
export function declaredView(outputSchema: Record<string, unknown>): string[] {
  return viewUnder(outputSchema, outputSchema, 0);
}
