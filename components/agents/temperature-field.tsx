"use client";

import { useId } from "react";

/** Temperature 0–2: a slider and a number kept in step; the server rounds to two decimals. */
export function TemperatureField({
  value,
  onChange,
  error,
  disabled,
}: {
  value: string;
  onChange: (text: string) => void;
  error?: string;
  disabled?: boolean;
}) {
  const id = useId();
  const numeric = Number(value);
  const sliderValue = Number.isFinite(numeric) ? Math.min(2, Math.max(0, numeric)) : 0.3;
  return (
    <div className="space-y-1">
      <label htmlFor={`${id}-number`} className="block text-sm font-medium text-slate-800">
        Température
      </label>
      <div className="flex items-center gap-3">
        <input
          type="range"
          min={0}
          max={2}
          step={0.01}
          value={sliderValue}
          disabled={disabled}
          aria-label="Température (curseur)"
          onChange={(e) => onChange(e.target.value)}
          className="flex-1 accent-brand-600"
        />
        <input
          id={`${id}-number`}
          type="number"
          min={0}
          max={2}
          step={0.01}
          value={value}
          disabled={disabled}
          inputMode="decimal"
          onChange={(e) => onChange(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={`${id}-hint${error ? ` ${id}-error` : ""}`}
          className="w-24 rounded-md border border-slate-300 px-2 py-1 text-sm aria-[invalid=true]:border-red-500"
        />
      </div>
      <p id={`${id}-hint`} className="text-xs text-slate-500">
        De 0 (constant) à 2 (créatif), arrondie à deux décimales. 0,3 par défaut.
      </p>
      {error && (
        <p id={`${id}-error`} role="alert" className="text-xs font-medium text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}
