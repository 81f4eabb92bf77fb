import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { assertDeclaredAnswer } from "./declared-answer";

const endpoint = {
  method: "GET" as const,
  path: "/v1/things/{thing}",
  response: z.object({ data: z.object({ id: z.string(), deleted: z.literal(true) }) }),
};

describe("a success checked against its declaration (test stacks)", () => {
  it("lets a declared answer through", () => {
    expect(() => assertDeclaredAnswer(endpoint, { data: { id: "thg_1", deleted: true } })).not.toThrow();
  });

  it("refuses an answer the declaration does not describe, naming the paths and never the values", () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      expect(() => assertDeclaredAnswer(endpoint, { data: { id: 42, deleted: false, secret: "s3cr3t" } })).toThrow(
        "GET /v1/things/{thing} answered what its declaration does not: data.id: invalid_type; data.deleted: invalid_value",
      );
      const lines = logged.mock.calls.map(([chunk]) => String(chunk)).join("");
      expect(lines).toContain("response_not_declared");
      expect(lines).not.toContain("s3cr3t");
    } finally {
      logged.mockRestore();
    }
  });

  it("has nothing to check where no response is declared", () => {
    expect(() => assertDeclaredAnswer({ method: "POST", path: "/v1/x" }, "anything")).not.toThrow();
  });
});
