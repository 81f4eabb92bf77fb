// Money as the API carries it — an integer in the currency's smallest unit and
// an ISO 4217 code — and as a French reader expects it. Pure: the approval
// screen (client) and the effect sentences (server) format the same way.

export interface Money {
  value_minor: number;
  currency: string;
}

/** Digits after the decimal point in the currency (EUR 2, JPY 0, KWD 3); 2 for a code Intl does not know. */
export function minorDigits(currency: string): number {
  try {
    return new Intl.NumberFormat("fr-FR", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** 12 500 minor units of EUR → "125,00 €". */
export function formatMoney(amount: Money): string {
  const digits = minorDigits(amount.currency);
  const value = amount.value_minor / 10 ** digits;
  try {
    return new Intl.NumberFormat("fr-FR", {
      style: "currency",
      currency: amount.currency,
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }).format(value);
  } catch {
    return `${value.toFixed(digits)} ${amount.currency}`;
  }
}
