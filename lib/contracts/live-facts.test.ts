import { describe, expect, it } from "vitest";
import { isIdShaped, LIVE_FACT_REASON, liveFactEnums, MANY_ENUM_VALUES } from "./live-facts";

const withEnum = (values: unknown[]) => ({
  type: "object",
  properties: { warehouse: { type: "string", enum: values } },
});

describe("isIdShaped", () => {
  it("tells ids from the words of a vocabulary", () => {
    for (const id of [
      "3f2b8c1e-9d4a-4b7e-8c2f-1a2b3c4d5e6f",
      "user_291",
      "C-1842",
      "wh_01hx7",
      "01HX7Z8K9M2N3P4Q5R6S7T8V9W",
      "00123456",
      1_234_567,
    ])
      expect(isIdShaped(id), String(id)).toBe(true);
    for (const word of [
      "draft",
      "approved",
      "saved_addresses_count",
      "orders_count",
      "agent_document",
      "eq",
      "utf8",
      42,
    ])
      expect(isIdShaped(word), String(word)).toBe(false);
  });
});

describe("liveFactEnums", () => {
  it("leaves a small stable vocabulary alone", () => {
    expect(liveFactEnums(withEnum(["draft", "approved", "cancelled"]))).toEqual([]);
  });

  it("flags id-shaped values, with examples and the doctrine's reason", () => {
    expect(liveFactEnums(withEnum(["WH-1001", "WH-1002", "main"]))).toEqual([
      {
        pointer: "/properties/warehouse",
        signals: ["id_shaped"],
        value_count: 3,
        id_examples: ["WH-1001", "WH-1002"],
        reason: LIVE_FACT_REASON,
      },
    ]);
    expect(LIVE_FACT_REASON).toContain(
      "N'encodez pas sous forme d'enums statiques les faits qui dépendent de données vivantes.",
    );
  });

  it(`flags more than ${MANY_ENUM_VALUES} values, not ${MANY_ENUM_VALUES}`, () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `city${"abcdefghijklmnopqrstuvwxyz"[i]}`);
    expect(liveFactEnums(withEnum(words(MANY_ENUM_VALUES)))).toEqual([]);
    expect(liveFactEnums(withEnum(words(MANY_ENUM_VALUES + 1)))[0].signals).toEqual(["many_values"]);
  });

  it("flags values that changed since the previous sync, in any order, nested in items", () => {
    const nested = (values: string[]) => ({
      type: "object",
      properties: { plans: { type: "array", items: { type: "string", enum: values } } },
    });
    expect(liveFactEnums(nested(["pro", "free"]), nested(["free", "pro"]))).toEqual([]);
    expect(liveFactEnums(nested(["free", "pro", "team"]), nested(["free", "pro"]))).toMatchObject([
      { pointer: "/properties/plans/items", signals: ["changed_between_syncs"] },
    ]);
    expect(liveFactEnums(nested(["free", "pro", "team"]), null)).toEqual([]);
  });
});
