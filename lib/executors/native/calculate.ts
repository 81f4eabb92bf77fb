import { ToolError } from "@/lib/executors/errors";
import { throwIfCancelled } from "./errors";
import { JSON_SCHEMA_2020, type ToolContext, type ToolContract } from "./types";

// Arithmetic for agents, evaluated by a hand-written parser: the expression is
// model output, so nothing here may reach eval, Function or object properties.

export interface CalculateInput {
  expression: string;
}

export interface CalculateOutput {
  expression: string;
  result: number;
}

export const MAX_EXPRESSION_LENGTH = 1000;
export const MAX_EXPRESSION_DEPTH = 100;

export const calculateContract: ToolContract = {
  inputSchema: {
    $schema: JSON_SCHEMA_2020,
    type: "object",
    properties: {
      expression: {
        type: "string",
        minLength: 1,
        maxLength: MAX_EXPRESSION_LENGTH,
        description:
          "Arithmetic expression: numbers, + - * / % ^, parentheses, sqrt abs round floor ceil min max log (base 10) ln exp sin cos tan (radians), pi, e.",
      },
    },
    required: ["expression"],
    additionalProperties: false,
  },
  outputSchema: {
    $schema: JSON_SCHEMA_2020,
    type: "object",
    properties: {
      expression: { type: "string" },
      result: { type: "number" },
    },
    required: ["expression", "result"],
    additionalProperties: false,
  },
};

type Token =
  | { kind: "number"; value: number; pos: number }
  | { kind: "name"; name: string; pos: number }
  | { kind: "symbol"; symbol: string; pos: number }
  | { kind: "end"; pos: number };

interface MathFunction {
  minArgs: number;
  maxArgs: number;
  apply: (args: number[]) => number;
}

// Maps, not object literals: a name like "constructor" must find nothing.
const FUNCTIONS = new Map<string, MathFunction>([
  ["sqrt", { minArgs: 1, maxArgs: 1, apply: ([x]) => Math.sqrt(x) }],
  ["abs", { minArgs: 1, maxArgs: 1, apply: ([x]) => Math.abs(x) }],
  ["round", { minArgs: 1, maxArgs: 2, apply: ([x, digits]) => roundTo(x, digits ?? 0) }],
  ["floor", { minArgs: 1, maxArgs: 1, apply: ([x]) => Math.floor(x) }],
  ["ceil", { minArgs: 1, maxArgs: 1, apply: ([x]) => Math.ceil(x) }],
  ["min", { minArgs: 1, maxArgs: Infinity, apply: (xs) => Math.min(...xs) }],
  ["max", { minArgs: 1, maxArgs: Infinity, apply: (xs) => Math.max(...xs) }],
  ["log", { minArgs: 1, maxArgs: 1, apply: ([x]) => Math.log10(x) }],
  ["ln", { minArgs: 1, maxArgs: 1, apply: ([x]) => Math.log(x) }],
  ["exp", { minArgs: 1, maxArgs: 1, apply: ([x]) => Math.exp(x) }],
  ["sin", { minArgs: 1, maxArgs: 1, apply: ([x]) => Math.sin(x) }],
  ["cos", { minArgs: 1, maxArgs: 1, apply: ([x]) => Math.cos(x) }],
  ["tan", { minArgs: 1, maxArgs: 1, apply: ([x]) => Math.tan(x) }],
]);

const CONSTANTS = new Map<string, number>([
  ["pi", Math.PI],
  ["e", Math.E],
]);

function roundTo(x: number, digits: number): number {
  if (!Number.isInteger(digits) || digits < 0 || digits > 15) {
    invalid("round(x, digits) needs an integer number of digits between 0 and 15");
  }
  const factor = 10 ** digits;
  return Math.round(x * factor) / factor;
}

function invalid(message: string): never {
  throw new ToolError("INVALID_ARGUMENTS", message, { field: "/expression" });
}

const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const SYMBOLS = new Set(["+", "-", "*", "/", "%", "^", "(", ")", ","]);

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  while (pos < source.length) {
    const ch = source[pos];
    if (/\s/.test(ch)) {
      pos++;
      continue;
    }
    NUMBER.lastIndex = pos;
    const number = NUMBER.exec(source);
    if (number) {
      tokens.push({ kind: "number", value: Number(number[0]), pos });
      pos += number[0].length;
      continue;
    }
    NAME.lastIndex = pos;
    const name = NAME.exec(source);
    if (name) {
      tokens.push({ kind: "name", name: name[0], pos });
      pos += name[0].length;
      continue;
    }
    if (!SYMBOLS.has(ch)) invalid(`Unexpected character '${ch}' at position ${pos + 1}`);
    tokens.push({ kind: "symbol", symbol: ch, pos });
    pos++;
  }
  tokens.push({ kind: "end", pos });
  return tokens;
}

// Recursive descent, one method per precedence level, evaluating as it goes:
//   sum     := product (("+" | "-") product)*
//   product := unary (("*" | "/" | "%") unary)*
//   unary   := ("+" | "-") unary | power
//   power   := primary ("^" unary)?        right-associative, -2^2 = -4
//   primary := number | constant | name "(" sum ("," sum)* ")" | "(" sum ")"
class Evaluator {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  run(): number {
    const value = this.sum();
    const next = this.peek();
    if (next.kind !== "end") invalid(`Unexpected ${describe(next)} at position ${next.pos + 1}`);
    return value;
  }

  private sum(): number {
    let left = this.product();
    for (let op = this.symbolAhead("+", "-"); op; op = this.symbolAhead("+", "-")) {
      this.index++;
      const right = this.product();
      left = finite(op === "+" ? left + right : left - right, op);
    }
    return left;
  }

  private product(): number {
    let left = this.unary();
    for (let op = this.symbolAhead("*", "/", "%"); op; op = this.symbolAhead("*", "/", "%")) {
      this.index++;
      const right = this.unary();
      if (op !== "*" && right === 0) invalid("Division by zero");
      left = finite(op === "*" ? left * right : op === "/" ? left / right : left % right, op);
    }
    return left;
  }

  private unary(): number {
    const op = this.symbolAhead("+", "-");
    if (!op) return this.power();
    this.index++;
    const value = this.nested(() => this.unary());
    return op === "-" ? -value : value;
  }

  private power(): number {
    const base = this.primary();
    if (!this.symbolAhead("^")) return base;
    this.index++;
    const exponent = this.nested(() => this.unary());
    return finite(base ** exponent, "^");
  }

  private primary(): number {
    const token = this.tokens[this.index++];
    if (token.kind === "number") {
      if (!Number.isFinite(token.value)) invalid(`The number at position ${token.pos + 1} is too large`);
      return token.value;
    }
    if (token.kind === "symbol" && token.symbol === "(") {
      const value = this.nested(() => this.sum());
      this.expect(")");
      return value;
    }
    if (token.kind === "name") return this.named(token.name, token.pos);
    return invalid(`Unexpected ${describe(token)} at position ${token.pos + 1}`);
  }

  private named(name: string, pos: number): number {
    const constant = CONSTANTS.get(name);
    if (constant !== undefined) return constant;
    const fn = FUNCTIONS.get(name);
    if (!fn) invalid(`Unknown name '${name}' at position ${pos + 1}`);
    this.expect("(");
    const args = this.nested(() => {
      const list = [this.sum()];
      while (this.symbolAhead(",")) {
        this.index++;
        list.push(this.sum());
      }
      return list;
    });
    this.expect(")");
    if (args.length < fn.minArgs || args.length > fn.maxArgs) {
      const expected =
        fn.minArgs === fn.maxArgs
          ? `${fn.minArgs}`
          : fn.maxArgs === Infinity
            ? `at least ${fn.minArgs}`
            : `${fn.minArgs} to ${fn.maxArgs}`;
      invalid(`${name}() takes ${expected} argument(s), got ${args.length}`);
    }
    return finite(fn.apply(args), `${name}()`);
  }

  private nested<T>(parse: () => T): T {
    if (++this.depth > MAX_EXPRESSION_DEPTH) invalid(`Expression is nested too deeply (max ${MAX_EXPRESSION_DEPTH})`);
    const value = parse();
    this.depth--;
    return value;
  }

  private symbolAhead(...symbols: string[]): string | null {
    const token = this.peek();
    return token.kind === "symbol" && symbols.includes(token.symbol) ? token.symbol : null;
  }

  private expect(symbol: string): void {
    const token = this.tokens[this.index];
    if (token.kind !== "symbol" || token.symbol !== symbol) {
      invalid(`Expected '${symbol}' but found ${describe(token)} at position ${token.pos + 1}`);
    }
    this.index++;
  }

  private peek(): Token {
    return this.tokens[this.index];
  }
}

function describe(token: Token): string {
  if (token.kind === "end") return "end of expression";
  if (token.kind === "number") return `number ${token.value}`;
  return `'${token.kind === "name" ? token.name : token.symbol}'`;
}

function finite(value: number, where: string): number {
  if (!Number.isFinite(value)) invalid(`The result of ${where} is not a finite real number`);
  return value;
}

/** Evaluates an arithmetic expression; throws ToolError INVALID_ARGUMENTS on any error. */
export function evaluateExpression(expression: string): number {
  if (expression.length > MAX_EXPRESSION_LENGTH)
    invalid(`Expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
  if (expression.trim() === "") invalid("Expression is empty");
  const value = new Evaluator(tokenize(expression)).run();
  if (Object.is(value, -0)) return 0;
  // Hide binary floating-point noise (0.1 + 0.2) that agents would echo to
  // people; integers are left untouched so large exact values stay exact.
  return Number.isInteger(value) ? value : Number(value.toPrecision(15));
}

// calculate — evaluate an arithmetic expression
export async function calculate(args: CalculateInput, ctx: ToolContext): Promise<CalculateOutput> {
  throwIfCancelled(ctx.signal);
  return { expression: args.expression, result: evaluateExpression(args.expression) };
}
