// Contract cases derived methodically from a tool's published input schema and
// one valid example: for every field, missing / empty / too long / wrong type /
// outside its pattern, enum or format (a civil date: an impossible day, a real one); each string, number and array bound and
// the nearest value outside it; for discriminated unions, an unknown
// discriminant, a missing one and each branch mixed with another's fields; an
// undeclared field on every object. Test support, not a test file.

export type JsonSchema = Record<string, unknown>;

export interface ContractCase {
  label: string;
  args: Record<string, unknown>;
  /** "invalid": the server must answer INVALID_ARGUMENTS at `pointer`; "accepted": anything but INVALID_ARGUMENTS. */
  expect: "invalid" | "accepted";
  pointer: string;
}

type Path = (string | number)[];

const pointerOf = (path: Path) => path.map((p) => `/${String(p).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");

function setAt(root: unknown, path: Path, value: unknown, remove = false): Record<string, unknown> {
  const copy = structuredClone(root) as Record<string, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (remove) delete node[last];
  else node[last] = value;
  return copy;
}

function typeOf(schema: JsonSchema): string | undefined {
  return typeof schema.type === "string" ? schema.type : undefined;
}

/** A value of another JSON type than the schema asks for. */
function wrongType(type: string | undefined, example: unknown): unknown {
  switch (type) {
    case "string":
      return 12345;
    case "integer":
    case "number":
      return String(example);
    case "boolean":
      return "true";
    case "array":
      return "not-an-array";
    case "object":
      return "not-an-object";
    default:
      return undefined;
  }
}

function matches(schema: JsonSchema, value: string): boolean {
  return typeof schema.pattern !== "string" || new RegExp(schema.pattern, "u").test(value);
}

function stringCases(
  schema: JsonSchema,
  example: string,
  push: (label: string, value: unknown, expect: ContractCase["expect"]) => void,
) {
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : undefined;
  // Filling with "x" keeps most patterns satisfied, so the length is what is tested; when it does not, the bound is skipped.
  const filled = (n: number) => "x".repeat(n);
  if (!matches(schema, "") || min > 0) push("empty string", "", "invalid");
  if (min > 1) {
    if (matches(schema, filled(min - 1))) push(`${min - 1} characters (minLength ${min})`, filled(min - 1), "invalid");
    if (matches(schema, filled(min))) push(`exactly minLength ${min}`, filled(min), "accepted");
  }
  if (max !== undefined) {
    push(`${max + 1} characters (maxLength ${max})`, filled(max + 1), "invalid");
    if (matches(schema, filled(max)) && schema.format === undefined)
      push(`exactly maxLength ${max}`, filled(max), "accepted");
  }
  if (typeof schema.pattern === "string") {
    const candidates = [
      example.toLowerCase(),
      `${example}!`,
      ` ${example}`,
      filled(Math.max(min, 1)),
      " ".repeat(Math.max(min, 1)),
    ];
    const outside = candidates.find(
      (c) => !matches(schema, c) && c.length >= min && (max === undefined || c.length <= max),
    );
    if (outside !== undefined) push(`outside pattern ${schema.pattern}`, outside, "invalid");
  }
  if (schema.format === "email") push("not an e-mail address", "not-an-email", "invalid");
  if (schema.format === "date") {
    // A civil date is a real day of the calendar, not only the YYYY-MM-DD shape.
    push("impossible calendar date 2026-02-30", "2026-02-30", "invalid");
    push("real calendar date 2096-02-29", "2096-02-29", "accepted");
  }
  if (Array.isArray(schema.enum) || schema.const !== undefined)
    push("outside the allowed values", "not-an-allowed-value", "invalid");
}

function numberCases(
  schema: JsonSchema,
  push: (label: string, value: unknown, expect: ContractCase["expect"]) => void,
) {
  if (schema.type === "integer") push("not an integer", 1.5, "invalid");
  if (typeof schema.minimum === "number") {
    push(`exactly minimum ${schema.minimum}`, schema.minimum, "accepted");
    push(`minimum - 1 (${schema.minimum - 1})`, schema.minimum - 1, "invalid");
  }
  if (typeof schema.maximum === "number") {
    push(`exactly maximum ${schema.maximum}`, schema.maximum, "accepted");
    push(`maximum + 1 (${schema.maximum + 1})`, schema.maximum + 1, "invalid");
  }
}

function arrayCases(
  schema: JsonSchema,
  example: unknown[],
  push: (label: string, value: unknown, expect: ContractCase["expect"]) => void,
) {
  const min = typeof schema.minItems === "number" ? schema.minItems : 0;
  if (min > 0) push("empty array", [], "invalid");
  if (typeof schema.maxItems === "number" && example.length > 0) {
    push(
      `${schema.maxItems + 1} items (maxItems ${schema.maxItems})`,
      Array.from({ length: schema.maxItems + 1 }, () => example[0]),
      "invalid",
    );
  }
  if (schema.uniqueItems === true && example.length > 0) push("duplicate items", [example[0], example[0]], "invalid");
}

/** The union branch the example takes, found by the branches' `const` discriminant. */
function unionBranch(
  branches: JsonSchema[],
  example: Record<string, unknown>,
): { branch: JsonSchema; discriminant: string } | null {
  for (const branch of branches) {
    const props = (branch.properties ?? {}) as Record<string, JsonSchema>;
    const discriminant = Object.keys(props).find(
      (key) => props[key].const !== undefined && props[key].const === example[key],
    );
    if (discriminant) return { branch, discriminant };
  }
  return null;
}

export function contractCases(schema: JsonSchema, example: Record<string, unknown>): ContractCase[] {
  const cases: ContractCase[] = [{ label: "the valid example", args: example, expect: "accepted", pointer: "" }];

  function walk(node: JsonSchema, value: unknown, path: Path) {
    const at = pointerOf(path);
    const push = (label: string, replacement: unknown, expect: ContractCase["expect"], target: Path = path) =>
      cases.push({
        label: `${at || "/"}: ${label}`,
        args: setAt(example, target, replacement),
        expect,
        pointer: pointerOf(target),
      });

    if (Array.isArray(node.oneOf)) {
      const branches = node.oneOf as JsonSchema[];
      const record = value as Record<string, unknown>;
      const found = unionBranch(branches, record);
      if (!found) throw new Error(`${at}: the example matches no union branch by discriminant`);
      const { branch, discriminant } = found;
      push("unknown discriminant", { ...record, [discriminant]: "unknown_kind" }, "invalid", path);
      cases[cases.length - 1].pointer = `${at}/${discriminant}`;
      cases.push({
        label: `${at}: missing discriminant`,
        args: setAt(example, [...path, discriminant], undefined, true),
        expect: "invalid",
        pointer: `${at}/${discriminant}`,
      });
      const own = Object.keys((branch.properties ?? {}) as object);
      for (const other of branches.filter((b) => b !== branch)) {
        const foreign = Object.keys((other.properties ?? {}) as object).find((key) => !own.includes(key));
        if (foreign)
          cases.push({
            label: `${at}: branch mixed with the other branch's ${foreign}`,
            args: setAt(example, [...path, foreign], "x"),
            expect: "invalid",
            pointer: `${at}/${foreign}`,
          });
      }
      walk(branch, value, path);
      return;
    }
    const type = typeOf(node);
    if (path.length > 0) {
      const wrong = wrongType(type, value);
      if (wrong !== undefined) push(`wrong type (${typeof wrong} instead of ${type})`, wrong, "invalid");
    }
    if (type === "object") {
      const record = value as Record<string, unknown>;
      const props = (node.properties ?? {}) as Record<string, JsonSchema>;
      const required = (node.required ?? []) as string[];
      for (const key of required) {
        cases.push({
          label: `${pointerOf([...path, key])}: missing`,
          args: setAt(example, [...path, key], undefined, true),
          expect: "invalid",
          pointer: pointerOf([...path, key]),
        });
      }
      if (node.additionalProperties === false) push("undeclared field", "x", "invalid", [...path, "unexpected_field"]);
      for (const [key, sub] of Object.entries(props))
        if (key in record && sub.const === undefined) walk(sub, record[key], [...path, key]);
    } else if (type === "string" && typeof value === "string") {
      stringCases(node, value, push);
    } else if ((type === "integer" || type === "number") && typeof value === "number") {
      numberCases(node, push);
    } else if (type === "array" && Array.isArray(value)) {
      arrayCases(node, value, push);
      if (value.length > 0 && node.items && typeof node.items === "object")
        walk(node.items as JsonSchema, value[0], [...path, 0]);
    }
  }

  walk(schema, example, []);
  return cases;
}
