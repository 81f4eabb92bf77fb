"use client";

import { useId } from "react";
import { TextInput } from "@/components/ui/field";
import { ErrorText } from "@/components/ui/error-text";

// A form generated from a tool's input schema (the JSON Schema subset tools
// declare: objects, a oneOf of objects told apart by a `const` member, strings,
// numbers, booleans, enums), prefilled with the proposal's arguments. Each
// field says its bound; `schemaErrors` checks the value as typed, before the
// server checks it again with the real contract.

export type JsonSchema = Record<string, unknown>;
type Json = unknown;

const asSchema = (value: unknown): JsonSchema =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonSchema) : {};
const isObject = (value: unknown): value is Record<string, Json> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const typesOf = (schema: JsonSchema): string[] =>
  Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === "string" ? [schema.type] : [];

/** The branches of a oneOf/anyOf, each with the constant that names it (its discriminator's value). */
function branchesOf(schema: JsonSchema): { key: string; value: string; schema: JsonSchema }[] | null {
  const list = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
  if (!Array.isArray(list)) return null;
  const branches = list.map(asSchema).map((branch) => {
    const props = asSchema(branch.properties);
    const key = Object.keys(props).find((name) => asSchema(props[name]).const !== undefined);
    return key ? { key, value: String(asSchema(props[key]).const), schema: branch } : null;
  });
  return branches.every(Boolean) ? (branches as { key: string; value: string; schema: JsonSchema }[]) : null;
}

function boundOf(schema: JsonSchema): string | undefined {
  const parts: string[] = [];
  const { minLength, maxLength, minimum, maximum, pattern } = schema as Record<string, number | string | undefined>;
  if (minLength !== undefined && maxLength !== undefined) parts.push(`de ${minLength} à ${maxLength} caractères`);
  else if (maxLength !== undefined) parts.push(`${maxLength} caractères au plus`);
  else if (minLength !== undefined) parts.push(`${minLength} caractère(s) au moins`);
  if (minimum !== undefined && maximum !== undefined) parts.push(`de ${minimum} à ${maximum}`);
  else if (minimum !== undefined) parts.push(`${minimum} au moins`);
  else if (maximum !== undefined) parts.push(`${maximum} au plus`);
  if (typeof pattern === "string") parts.push(`format ${pattern}`);
  const description = typeof schema.description === "string" ? schema.description : "";
  return [description, parts.join(", ")].filter(Boolean).join(" — ") || undefined;
}

/** What is wrong with `value` against `schema`, by JSON Pointer ("" when nothing). */
export function schemaErrors(schema: JsonSchema, value: Json, pointer = ""): Record<string, string> {
  const branches = branchesOf(schema);
  if (branches && isObject(value)) {
    const branch = branches.find((b) => value[b.key] === b.value);
    return branch ? schemaErrors(branch.schema, value, pointer) : { [pointer]: "Choisissez une option." };
  }
  const types = typesOf(schema);
  if (types.includes("object") || schema.properties) {
    if (!isObject(value)) return { [pointer]: "Valeur manquante." };
    const props = asSchema(schema.properties);
    const required = (schema.required as string[] | undefined) ?? [];
    return Object.assign(
      {},
      ...Object.keys(props).map((name) =>
        value[name] === undefined || value[name] === ""
          ? required.includes(name)
            ? { [`${pointer}/${name}`]: "Obligatoire." }
            : {}
          : schemaErrors(asSchema(props[name]), value[name], `${pointer}/${name}`),
      ),
    );
  }
  if (value === null && types.includes("null")) return {};
  if (types.includes("integer") || types.includes("number")) {
    if (typeof value !== "number" || Number.isNaN(value)) return { [pointer]: "Un nombre est attendu." };
    if (types.includes("integer") && !Number.isInteger(value)) return { [pointer]: "Un nombre entier est attendu." };
    if (typeof schema.minimum === "number" && value < schema.minimum)
      return { [pointer]: `${schema.minimum} au moins.` };
    if (typeof schema.maximum === "number" && value > schema.maximum)
      return { [pointer]: `${schema.maximum} au plus.` };
    return {};
  }
  if (types.includes("string")) {
    if (typeof value !== "string") return { [pointer]: "Un texte est attendu." };
    if (typeof schema.minLength === "number" && value.length < schema.minLength)
      return { [pointer]: `${schema.minLength} caractère(s) au moins.` };
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength)
      return { [pointer]: `${schema.maxLength} caractères au plus.` };
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(value))
      return { [pointer]: `Format attendu : ${schema.pattern}.` };
  }
  return {};
}

interface FieldsProps {
  schema: JsonSchema;
  value: Json;
  onChange: (value: Json) => void;
  name: string;
  pointer: string;
  errors: Record<string, string>;
  required?: boolean;
}

function Leaf({ schema, value, onChange, name, pointer, errors, required }: FieldsProps) {
  const id = useId();
  const hint = boundOf(schema);
  const error = errors[pointer];
  const describedBy = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  const types = typesOf(schema);
  const numeric = types.includes("integer") || types.includes("number");
  const label = `${name}${required ? "" : " (facultatif)"}`;
  let control;
  if (Array.isArray(schema.enum)) {
    control = (
      <select
        id={id}
        aria-describedby={describedBy}
        aria-invalid={error ? true : undefined}
        className="block w-full rounded-md border border-slate-300 px-3 py-2 text-sm"
        value={typeof value === "string" ? value : ""}
        onChange={(e) => onChange(e.target.value)}
      >
        {!required && <option value="">—</option>}
        {(schema.enum as unknown[]).map((option) => (
          <option key={String(option)} value={String(option)}>
            {String(option)}
          </option>
        ))}
      </select>
    );
  } else if (types.includes("boolean")) {
    control = <input id={id} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
  } else {
    control = (
      <TextInput
        id={id}
        aria-describedby={describedBy}
        invalid={Boolean(error)}
        inputMode={numeric ? "decimal" : undefined}
        value={value === null || value === undefined ? "" : String(value)}
        onChange={(e) => {
          const text = e.target.value;
          if (numeric) onChange(text === "" ? undefined : Number(text));
          else onChange(text === "" && !required ? undefined : text);
        }}
      />
    );
  }
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block font-mono text-sm font-medium text-slate-800">
        {label}
      </label>
      {control}
      {hint && (
        <p id={`${id}-hint`} className="text-xs text-slate-500">
          {hint}
        </p>
      )}
      {error && (
        <ErrorText small id={`${id}-error`}>
          {error}
        </ErrorText>
      )}
    </div>
  );
}

/** The fields of one schema node, bound to `value`. */
export function SchemaFields(props: FieldsProps) {
  const { schema, value, onChange, name, pointer, errors } = props;
  const selectId = useId();
  const branches = branchesOf(schema);
  if (branches) {
    const current = isObject(value) ? branches.find((b) => value[b.key] === b.value) : undefined;
    const key = branches[0].key;
    return (
      <fieldset className="space-y-3 rounded-md border border-slate-200 p-3">
        <legend className="px-1 font-mono text-sm font-semibold">{name}</legend>
        <div className="space-y-1">
          <label htmlFor={selectId} className="block font-mono text-sm font-medium text-slate-800">
            {key}
          </label>
          <select
            id={selectId}
            className="block w-full rounded-md border border-slate-300 px-3 py-2 text-sm"
            value={current?.value ?? ""}
            onChange={(e) => onChange({ [key]: e.target.value })}
          >
            {branches.map((b) => (
              <option key={b.value} value={b.value}>
                {b.value}
              </option>
            ))}
          </select>
        </div>
        {current && (
          <ObjectFields {...props} schema={current.schema} skip={current.key} value={value} onChange={onChange} />
        )}
        {errors[pointer] && <ErrorText small>{errors[pointer]}</ErrorText>}
      </fieldset>
    );
  }
  if (typesOf(schema).includes("object") || schema.properties) {
    return (
      <fieldset className="space-y-3 rounded-md border border-slate-200 p-3">
        <legend className="px-1 font-mono text-sm font-semibold">{name}</legend>
        <ObjectFields {...props} />
      </fieldset>
    );
  }
  if (typesOf(schema).some((t) => t === "array")) {
    return <p className="text-sm text-slate-600">{name} : ce champ ne se modifie pas ici.</p>;
  }
  return <Leaf {...props} />;
}

/** The members of an object schema, in the schema's order; `skip` is a oneOf's discriminator, chosen above. */
export function ObjectFields({ schema, value, onChange, pointer, errors, skip }: FieldsProps & { skip?: string }) {
  const props = asSchema(schema.properties);
  const required = (schema.required as string[] | undefined) ?? [];
  const record = isObject(value) ? value : {};
  return (
    <div className="space-y-3">
      {Object.keys(props)
        .filter((name) => name !== skip)
        .map((name) => (
          <SchemaFields
            key={name}
            schema={asSchema(props[name])}
            value={record[name]}
            name={name}
            pointer={`${pointer}/${name}`}
            errors={errors}
            required={required.includes(name)}
            onChange={(next) => {
              const copy = { ...record };
              if (next === undefined) delete copy[name];
              else copy[name] = next;
              onChange(copy);
            }}
          />
        ))}
    </div>
  );
}
