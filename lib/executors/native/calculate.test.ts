import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { calculate, evaluateExpression, MAX_EXPRESSION_DEPTH } from "./calculate";
import { ToolError } from "@/lib/executors/errors";

const ctx = { signal: new AbortController().signal };

function failure(expression: string): ToolError {
  try {
    evaluateExpression(expression);
  } catch (err) {
    if (err instanceof ToolError) return err;
    throw err;
  }
  throw new Error(`expected ${expression} to fail`);
}

describe("calculate", () => {
  it.each([
    ["1 + 2 * 3", 7],
    ["(1 + 2) * 3", 9],
    ["10 - 4 - 3", 3],
    ["100 / 10 / 5", 2],
    ["2 ^ 3 ^ 2", 512],
    ["-2 ^ 2", -4],
    ["(-2) ^ 2", 4],
    ["2 ^ -1", 0.5],
    ["--3", 3],
    ["+4 - -4", 8],
    ["7 % 3", 1],
    ["2 * 3 % 4", 2],
    ["1.5e3 + .5", 1500.5],
    ["2E-2", 0.02],
    ["0.1 + 0.2", 0.3],
    ["sqrt(16) + abs(-3)", 7],
    ["round(2.5) + floor(2.7) + ceil(2.1)", 8],
    ["round(3.14159, 2)", 3.14],
    ["min(4, 2, 8) + max(1, 9)", 11],
    ["log(1000)", 3],
    ["ln(e)", 1],
    ["exp(0)", 1],
    ["sin(0) + cos(0) + tan(0)", 1],
    ["cos(pi)", -1],
    ["2 * pi", 6.28318530717959],
    ["-0", 0],
    ["2 ^ 53 + 0", 9007199254740992],
  ])("%s = %d", (expression, expected) => {
    expect(evaluateExpression(expression)).toBe(expected);
  });

  it("returns the expression with its result", async () => {
    await expect(calculate({ expression: "6 * 7" }, ctx)).resolves.toEqual({ expression: "6 * 7", result: 42 });
  });

  it.each([
    ["1 / 0", /Division by zero/],
    ["0 / 0", /Division by zero/],
    ["5 % 0", /Division by zero/],
    ["sqrt(-1)", /sqrt\(\) is not a finite real number/],
    ["ln(0)", /not a finite/],
    ["10 ^ 400", /not a finite/],
    ["1e999", /too large/],
    ["", /empty/],
    ["   ", /empty/],
    ["1 +", /end of expression/],
    ["(1 + 2", /Expected '\)'/],
    ["1 + 2)", /Unexpected '\)'/],
    ["2 pi", /Unexpected 'pi'/],
    ["1e", /Unexpected 'e'/],
    ["foo(1)", /Unknown name 'foo'/],
    ["sqrt", /Expected '\('/],
    ["sqrt(1, 2)", /takes 1 argument/],
    ["round(1, 2, 3)", /takes 1 to 2 argument/],
    ["round(1.5, 0.5)", /digits/],
    ["min()", /Unexpected '\)'/],
  ])("refuses %j", (expression, message) => {
    const err = failure(expression);
    expect(err.code).toBe("INVALID_ARGUMENTS");
    expect(err.field).toBe("/expression");
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(message);
  });

  it.each([
    "constructor",
    "__proto__",
    "toString()",
    "process.exit()",
    "require('fs')",
    "1;2",
    "this",
    "globalThis",
    "Math.PI",
    "x = 1",
    "`1`",
    "1 + [2]",
    "eval(1)",
    "Function('return 1')()",
    "1 // 2",
  ])("treats hostile input %j as an invalid expression", (expression) => {
    const err = failure(expression);
    expect(err.code).toBe("INVALID_ARGUMENTS");
  });

  it("limits nesting depth and length", () => {
    const ok = "(".repeat(MAX_EXPRESSION_DEPTH - 1) + "1" + ")".repeat(MAX_EXPRESSION_DEPTH - 1);
    expect(evaluateExpression(ok)).toBe(1);
    const tooDeep = "(".repeat(MAX_EXPRESSION_DEPTH + 1) + "1" + ")".repeat(MAX_EXPRESSION_DEPTH + 1);
    expect(failure(tooDeep).message).toMatch(/nested too deeply/);
    expect(failure("-".repeat(500) + "1").message).toMatch(/nested too deeply/);
    expect(failure("2^".repeat(300) + "1").message).toMatch(/nested too deeply/);
    expect(failure("sqrt(".repeat(150) + "1" + ")".repeat(150)).message).toMatch(/nested too deeply/);
    expect(failure("1+".repeat(600) + "1").message).toMatch(/longer than 1000/);
    expect(evaluateExpression("1+".repeat(499) + "1")).toBe(500);
  });

  it("reports cancellation", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(calculate({ expression: "1" }, { signal: controller.signal })).rejects.toMatchObject({
      code: "CANCELLED",
    });
  });
});

// Reference model: integer expression trees printed with full parentheses,
// and flat operator chains evaluated with the textbook two-level precedence.
type Tree = number | { op: "+" | "-" | "*"; left: Tree; right: Tree } | { neg: Tree };

const tree: fc.Arbitrary<Tree> = fc.letrec<{ node: Tree }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.integer({ min: 0, max: 50 }),
    fc.record({ op: fc.constantFrom("+" as const, "-" as const, "*" as const), left: tie("node"), right: tie("node") }),
    fc.record({ neg: tie("node") }),
  ),
})).node;

function print(t: Tree): string {
  if (typeof t === "number") return String(t);
  if ("neg" in t) return `-(${print(t.neg)})`;
  return `(${print(t.left)} ${t.op} ${print(t.right)})`;
}

function reference(t: Tree): number {
  if (typeof t === "number") return t;
  if ("neg" in t) return -reference(t.neg);
  const [l, r] = [reference(t.left), reference(t.right)];
  return t.op === "+" ? l + r : t.op === "-" ? l - r : l * r;
}

describe("calculate against a reference", () => {
  it("agrees on parenthesised integer expressions", () => {
    fc.assert(
      fc.property(tree, (t) => {
        const expected = reference(t);
        fc.pre(Number.isSafeInteger(expected) && print(t).length <= 1000);
        expect(evaluateExpression(print(t))).toBe(expected === 0 ? 0 : expected);
      }),
      { numRuns: 500 },
    );
  });

  it("applies * before + and - on flat chains, left to right", () => {
    const chain = fc.tuple(
      fc.integer({ min: 0, max: 20 }),
      fc.array(fc.tuple(fc.constantFrom("+", "-", "*"), fc.integer({ min: 0, max: 20 })), { maxLength: 8 }),
    );
    fc.assert(
      fc.property(chain, ([first, rest]) => {
        const terms: number[] = [first];
        const signs: number[] = [1];
        for (const [op, n] of rest) {
          if (op === "*") terms[terms.length - 1] *= n;
          else {
            terms.push(n);
            signs.push(op === "+" ? 1 : -1);
          }
        }
        const expected = terms.reduce((sum, term, i) => sum + signs[i] * term, 0);
        const source = [String(first), ...rest.map(([op, n]) => `${op} ${n}`)].join(" ");
        expect(evaluateExpression(source)).toBe(expected === 0 ? 0 : expected);
      }),
      { numRuns: 500 },
    );
  });
});
