/** A JSON value shown as indented text, scrollable, for schemas and diffs. */
export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return (
    <pre
      aria-label={label}
      tabIndex={0}
      className="max-h-80 max-w-full overflow-auto rounded-md bg-slate-900 p-3 text-xs leading-relaxed break-words whitespace-pre-wrap text-slate-100"
    >
      {value === null || value === undefined ? "—" : typeof value === "string" ? value : JSON.stringify(value, null, 2)}
    </pre>
  );
}
