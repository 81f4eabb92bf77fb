/** The items of a comma-separated list, trimmed, empty ones dropped: `" a, ,b "` → `["a", "b"]`. Safe for the browser. */
export function commaList(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}
