import { describe, expect, it } from "vitest";
import { formatMoney, minorDigits } from "./money";

// Intl puts narrow no-break spaces (U+202F) between groups and before the symbol.
const plain = (text: string) => text.replace(/[\u202f\u00a0]/g, " ");

describe("money in French", () => {
  it("formats minor units with the currency's own digits", () => {
    expect(plain(formatMoney({ value_minor: 12_500, currency: "EUR" }))).toBe("125,00 €");
    expect(plain(formatMoney({ value_minor: 123_456_789, currency: "EUR" }))).toBe("1 234 567,89 €");
    expect(plain(formatMoney({ value_minor: 15_000, currency: "CHF" }))).toBe("150,00 CHF");
    expect(plain(formatMoney({ value_minor: 1_000, currency: "JPY" }))).toBe("1 000 JPY");
    expect(minorDigits("KWD")).toBe(3);
  });

  it("still says something for a code Intl refuses", () => {
    expect(formatMoney({ value_minor: 150, currency: "ZZZ" })).toMatch(/1,50|1\.50/);
  });
});
