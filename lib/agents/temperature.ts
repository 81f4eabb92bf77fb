// Temperatures are stored exactly, as integer hundredths (0.3 → 30).
//
// Rounding rule (documented in the README): the JSON number is rounded half-up
// to two decimals on its DECIMAL representation, the shortest string that reads
// back as the same number (what JSON.stringify prints). So 0.125 → 0.13,
// 1.005 → 1.01 and 1.236 → 1.24, 0.004 → 0 — although in binary 1.005 is
// 1.00499999999999989…, which Math.round(x * 100) would take down to 1.00.
// The range 0..2 is checked on the number as sent, before rounding.

export const DEFAULT_TEMPERATURE_CENTI = 30;

/** Hundredths of a non-negative finite number, rounded half-up on its decimal digits. */
export function temperatureToCenti(value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`temperature out of range: ${value}`);
  const [mantissa, exponentPart] = String(value).split("e");
  const [whole, fraction = ""] = mantissa.split(".");
  let digits = whole + fraction;
  let point = whole.length + (exponentPart ? Number(exponentPart) : 0);
  if (point < 0) {
    digits = "0".repeat(-point) + digits;
    point = 0;
  }
  const kept = digits.slice(0, point + 2).padEnd(point + 2, "0");
  const next = digits.charAt(point + 2) || "0";
  return Number(kept) + (next >= "5" ? 1 : 0);
}

/** The API's number: the nearest double to centi/100, which prints as its two decimals. */
export function centiToTemperature(centi: number): number {
  return centi / 100;
}
