import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { nativeExecutors, type NativeToolKey } from "./index";

// Every contract compiles under strict JSON Schema 2020-12, and accepts and
// refuses the arguments an agent could send.

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);

function validator(key: NativeToolKey, which: "inputSchema" | "outputSchema") {
  return ajv.compile(nativeExecutors[key].contract[which]);
}

const points = (n: number, y = 1) => Array.from({ length: n }, (_, i) => ({ x: `p${i}`, y }));

const examples: Record<NativeToolKey, { valid: unknown[]; invalid: [unknown, string][] }> = {
  calculate: {
    valid: [{ expression: "1 + 1" }, { expression: "x".repeat(1000) }],
    invalid: [
      [{}, ""],
      [{ expression: "" }, "/expression"],
      [{ expression: "x".repeat(1001) }, "/expression"],
      [{ expression: 12 }, "/expression"],
      [{ expression: "1", extra: true }, ""],
    ],
  },
  create_chart: {
    valid: [
      { type: "bar", title: "Ventes", series: [{ name: "2024", points: [{ x: "jan", y: 3 }] }] },
      {
        type: "line",
        title: "T",
        x_label: "mois",
        y_label: "€",
        series: Array.from({ length: 10 }, (_, i) => ({ name: `s${i}`, points: points(500, -1) })),
      },
      {
        type: "pie",
        title: "Parts",
        series: [
          {
            name: "parts",
            points: [
              { x: 1, y: 0 },
              { x: 2, y: 5 },
            ],
          },
        ],
      },
    ],
    invalid: [
      [{ type: "radar", title: "T", series: [{ name: "s", points: points(1) }] }, "/type"],
      [{ type: "bar", title: "", series: [{ name: "s", points: points(1) }] }, "/title"],
      [{ type: "bar", title: "x".repeat(201), series: [{ name: "s", points: points(1) }] }, "/title"],
      [{ type: "bar", title: "T", series: [] }, "/series"],
      [
        { type: "bar", title: "T", series: Array.from({ length: 11 }, () => ({ name: "s", points: points(1) })) },
        "/series",
      ],
      [{ type: "bar", title: "T", series: [{ name: "s", points: [] }] }, "/series/0/points"],
      [{ type: "bar", title: "T", series: [{ name: "s", points: points(501) }] }, "/series/0/points"],
      [{ type: "bar", title: "T", series: [{ name: "", points: points(1) }] }, "/series/0/name"],
      [{ type: "bar", title: "T", series: [{ name: "s", points: [{ x: true, y: 1 }] }] }, "/series/0/points/0/x"],
      [{ type: "bar", title: "T", series: [{ name: "s", points: [{ x: "a", y: "1" }] }] }, "/series/0/points/0/y"],
      [{ type: "bar", title: "T", series: [{ name: "s", points: [{ x: "a", y: 1, z: 2 }] }] }, "/series/0/points/0"],
      [
        {
          type: "pie",
          title: "T",
          series: [
            { name: "a", points: points(1) },
            { name: "b", points: points(1) },
          ],
        },
        "/series",
      ],
      [{ type: "pie", title: "T", series: [{ name: "a", points: [{ x: "a", y: -1 }] }] }, "/series/0/points/0/y"],
    ],
  },
  web_fetch: {
    valid: [{ url: "https://example.com/a?b=c" }, { url: "http://example.com", max_chars: 100 }],
    invalid: [
      [{}, ""],
      [{ url: "not a url" }, "/url"],
      [{ url: `https://example.com/${"a".repeat(2048)}` }, "/url"],
      [{ url: "https://example.com", max_chars: 99 }, "/max_chars"],
      [{ url: "https://example.com", max_chars: 50_001 }, "/max_chars"],
      [{ url: "https://example.com", max_chars: 150.5 }, "/max_chars"],
      [{ url: "https://example.com", headers: {} }, ""],
    ],
  },
  web_search: {
    valid: [{ query: "guichet" }, { query: "q".repeat(400), max_results: 20 }],
    invalid: [
      [{}, ""],
      [{ query: "" }, "/query"],
      [{ query: "q".repeat(401) }, "/query"],
      [{ query: "q", max_results: 0 }, "/max_results"],
      [{ query: "q", max_results: 21 }, "/max_results"],
      [{ query: "q", engine: "google" }, ""],
    ],
  },
};

describe.each(Object.keys(examples) as NativeToolKey[])("%s contract", (key) => {
  const validate = validator(key, "inputSchema");

  it("compiles both schemas in strict 2020-12 mode", () => {
    expect(nativeExecutors[key].contract.inputSchema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(() => validator(key, "outputSchema")).not.toThrow();
  });

  it.each(examples[key].valid.map((v) => [v]))("accepts %j", (args) => {
    expect(validate(args), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each(examples[key].invalid)("refuses %j at %j", (args, pointer) => {
    expect(validate(args)).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath)).toContain(pointer);
  });
});
