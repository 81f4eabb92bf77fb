/** ISO 8601 with an explicit offset, as the API promises: 2026-09-21T10:00:00+00:00. */
export function isoOffset(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "+00:00");
}

export function isoOffsetOrNull(date: Date | null | undefined): string | null {
  return date ? isoOffset(date) : null;
}
