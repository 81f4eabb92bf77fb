"use client";

import { Field, TextArea } from "@/components/ui/field";
import { Button } from "@/components/ui/button";

export type JsonShape = "object" | "array";

/** Parses an editor's text: empty is `null`; otherwise JSON of the expected shape, or the problem in French. */
export function parseJsonText(text: string, shape: JsonShape): { value: unknown; problem: string | null } {
  if (text.trim() === "") return { value: null, problem: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { value: undefined, problem: `JSON invalide : ${error instanceof Error ? error.message : String(error)}` };
  }
  const ok =
    shape === "array" ? Array.isArray(value) : typeof value === "object" && value !== null && !Array.isArray(value);
  return ok
    ? { value, problem: null }
    : {
        value: undefined,
        problem: shape === "array" ? "Attendu : une liste JSON […]." : "Attendu : un objet JSON {…}.",
      };
}

/** A JSON editor: a monospace textarea that says at once when its text does not parse. */
export function JsonField({
  label,
  value,
  onChange,
  shape,
  hint,
  serverError,
  example,
  disabled,
}: {
  label: string;
  value: string;
  onChange: (text: string) => void;
  shape: JsonShape;
  hint?: string;
  serverError?: string;
  example: unknown;
  disabled?: boolean;
}) {
  const { problem } = parseJsonText(value, shape);
  return (
    <Field label={label} error={problem ?? serverError} hint={hint}>
      {({ id, describedBy, invalid }) => (
        <div className="space-y-1">
          <TextArea
            id={id}
            value={value}
            onChange={(e) => onChange(e.target.value)}
            rows={6}
            spellCheck={false}
            disabled={disabled}
            aria-describedby={describedBy}
            invalid={invalid}
            className="font-mono text-xs"
            placeholder="Vide : aucun"
          />
          {!disabled && value.trim() === "" && (
            <Button
              variant="ghost"
              className="px-2 py-1 text-xs"
              onClick={() => onChange(JSON.stringify(example, null, 2))}
            >
              Insérer un exemple
            </Button>
          )}
        </div>
      )}
    </Field>
  );
}
