import { describe, expect, it } from "vitest";
import { readStatusAnswer } from "./status";

describe("reading the status tool's answer", () => {
  const result = { operation_id: "op_1", new_version: 18 };

  it("returns a recorded success with its result", () => {
    expect(
      readStatusAnswer(
        { status: "succeeded", tool: "commit_address_change", result, error: null },
        "commit_address_change",
      ),
    ).toEqual({ kind: "succeeded", result });
  });

  it("returns a recorded failure with its error", () => {
    const error = { code: "VERSION_CONFLICT", message: "changed", retryable: false, field: "/expected_version" };
    expect(
      readStatusAnswer(
        { status: "failed", tool: "commit_address_change", result: null, error },
        "commit_address_change",
      ),
    ).toEqual({
      kind: "failed",
      error: { code: "VERSION_CONFLICT", message: "changed", field: "/expected_version" },
    });
  });

  it("never turns 'nothing recorded' into a failure: the write may still be on its way", () => {
    expect(
      readStatusAnswer({ status: "not_found", tool: null, result: null, error: null }, "commit_address_change").kind,
    ).toBe("unknown");
  });

  it("stays unknown on anything it cannot vouch for", () => {
    expect(
      readStatusAnswer({ status: "succeeded", tool: "commit_address_change", result: null }, "commit_address_change")
        .kind,
    ).toBe("unknown");
    expect(
      readStatusAnswer({ status: "failed", tool: "commit_address_change", error: null }, "commit_address_change").kind,
    ).toBe("unknown");
    expect(readStatusAnswer({ status: "done" }, null).kind).toBe("unknown");
    expect(readStatusAnswer("succeeded", null).kind).toBe("unknown");
    expect(
      readStatusAnswer({ status: "succeeded", tool: "send_email", result }, "commit_address_change"),
    ).toMatchObject({ kind: "unknown", why: expect.stringContaining("another tool") });
  });
});
