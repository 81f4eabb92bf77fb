import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { centiToTemperature, temperatureToCenti } from "./temperature";

describe("temperature rounding", () => {
  it.each([
    [0, 0],
    [0.3, 30],
    [2, 200],
    [1.236, 124],
    [0.004, 0],
    [0.005, 1],
    [0.125, 13],
    [1.005, 101],
    [1.015, 102],
    [0.285, 29],
    [1.994, 199],
    [1.995, 200],
    [0.1 + 0.2, 30],
    [1e-7, 0],
    [0.0049999, 0],
    [1.2345, 123],
    [0.99999, 100],
  ])("%s → %s hundredths", (value, centi) => {
    expect(temperatureToCenti(value)).toBe(centi);
  });

  it("rounds half-way values as decimals, not as their binary approximations", () => {
    // In binary 1.005 and 0.285 sit just below the half: a float rounding gives 1.00 and 0.28.
    expect(Math.round(1.005 * 100)).toBe(100);
    expect(temperatureToCenti(1.005)).toBe(101);
    expect(temperatureToCenti(0.285)).toBe(29);
  });

  it("agrees with exact decimal half-up rounding for every number of up to 6 decimals in 0..2", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2_000_000 }), (micro) => {
        const value = Number(`${Math.floor(micro / 1_000_000)}.${String(micro % 1_000_000).padStart(6, "0")}`);
        const expected = Math.floor(micro / 10_000) + (Math.floor(micro / 1_000) % 10 >= 5 ? 1 : 0);
        expect(temperatureToCenti(value)).toBe(expected);
      }),
    );
  });

  it("serializes hundredths back to their two-decimal number", () => {
    for (let centi = 0; centi <= 200; centi++) {
      expect(String(centiToTemperature(centi))).toBe(String(Number((centi / 100).toFixed(2))));
      expect(temperatureToCenti(centiToTemperature(centi))).toBe(centi);
    }
  });

  it("refuses negative and non-finite numbers", () => {
    expect(() => temperatureToCenti(-0.1)).toThrow(RangeError);
    expect(() => temperatureToCenti(Number.NaN)).toThrow(RangeError);
  });
});
