import { useId, type InputHTMLAttributes, type ReactNode, type TextareaHTMLAttributes } from "react";
import { ErrorText } from "./error-text";

interface FieldProps {
  label: string;
  error?: string;
  hint?: ReactNode;
  children: (ids: { id: string; describedBy?: string; invalid: boolean }) => ReactNode;
}

/** A labelled form field whose error text is tied to its control (aria-describedby). */
export function Field({ label, error, hint, children }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      {children({ id, describedBy, invalid: Boolean(error) })}
      {hint && (
        <p id={hintId} className="text-xs text-slate-500">
          {hint}
        </p>
      )}
      {error && (
        <ErrorText small id={errorId}>
          {error}
        </ErrorText>
      )}
    </div>
  );
}

const control =
  "block w-full rounded-md border px-3 py-2 text-sm shadow-sm focus:border-brand-600 aria-[invalid=true]:border-red-500";

export function TextInput({
  invalid,
  className = "",
  ...props
}: InputHTMLAttributes<HTMLInputElement> & { invalid?: boolean }) {
  return (
    <input aria-invalid={invalid || undefined} className={`${control} border-slate-300 ${className}`} {...props} />
  );
}

export function TextArea({
  invalid,
  className = "",
  ...props
}: TextareaHTMLAttributes<HTMLTextAreaElement> & { invalid?: boolean }) {
  return (
    <textarea aria-invalid={invalid || undefined} className={`${control} border-slate-300 ${className}`} {...props} />
  );
}

/** A labelled text input: a Field around a TextInput, for the common case of a single input. */
export function TextField({
  label,
  error,
  hint,
  ...input
}: Omit<FieldProps, "children"> & Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "aria-describedby">) {
  return (
    <Field label={label} error={error} hint={hint}>
      {({ id, describedBy, invalid }) => (
        <TextInput {...input} id={id} aria-describedby={describedBy} invalid={invalid} />
      )}
    </Field>
  );
}
