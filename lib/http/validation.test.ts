import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ApiError, toErrorEnvelope } from "./errors";
import { afterCursor, decodeCursor, encodeCursor, page, parseInput } from "./validation";

const Body = z.strictObject({
  name: z.string().min(1),
  nested: z.strictObject({ n: z.number().max(2) }).optional(),
  list: z.array(z.string()).optional(),
});

function refusal(input: unknown): ApiError {
  try {
    parseInput(Body, input);
  } catch (error) {
    return error as ApiError;
  }
  throw new Error("accepted");
}

describe("parseInput", () => {
  it("names unknown keys, also nested ones", () => {
    expect(refusal({ name: "a", extra: 1 })).toMatchObject({ code: "unknown_parameter", errors: [{ field: "extra" }] });
    expect(refusal({ name: "a", nested: { n: 1, x: 2 } })).toMatchObject({
      code: "unknown_parameter",
      errors: [{ field: "nested.x" }],
    });
  });

  it("gives one entry per invalid field, with array indexes", () => {
    const error = refusal({ name: "", nested: { n: 3 }, list: ["ok", 4] });
    expect(error.code).toBe("invalid_parameter");
    expect(error.errors?.map((e) => e.field)).toEqual(["name", "nested.n", "list[1]"]);
    expect(error.errors?.map((e) => e.code)).toEqual(["too_small", "too_big", "invalid_type"]);
  });

  it("returns the parsed value", () => {
    expect(parseInput(Body, { name: "x" })).toEqual({ name: "x" });
  });
});

describe("cursors", () => {
  it("round-trip and page", () => {
    const rows = [3, 2, 1].map((n) => ({ id: `r${n}`, createdAt: new Date(Date.UTC(2026, 0, n)) }));
    const result = page(rows, 2, (r) => r.id);
    expect(result.data).toEqual(["r3", "r2"]);
    expect(decodeCursor(result.next_cursor!)).toEqual({ id: "r2", createdAt: rows[1].createdAt });
    expect(afterCursor(encodeCursor(rows[1]))).toEqual({
      OR: [{ createdAt: { lt: rows[1].createdAt } }, { createdAt: rows[1].createdAt, id: { lt: "r2" } }],
    });
    expect(page(rows, 3, (r) => r.id).next_cursor).toBeNull();
  });

  it("refuses a forged cursor with invalid_parameter", () => {
    expect(() => decodeCursor("not-a-cursor")).toThrow(ApiError);
  });
});

describe("error envelope", () => {
  it("never leaks an unknown error's message", () => {
    const { status, body } = toErrorEnvelope(new Error("connection string postgres://secret@db"), "req_1");
    expect(status).toBe(500);
    expect(JSON.stringify(body)).not.toContain("secret");
    expect(body.error).toEqual({
      code: "internal_error",
      message: "Something went wrong on our side.",
      request_id: "req_1",
    });
  });

  it("maps Prisma's not-found and unique violations", () => {
    expect(toErrorEnvelope({ code: "P2025" }, "r").status).toBe(404);
    expect(toErrorEnvelope({ code: "P2002" }, "r").status).toBe(409);
  });
});
