import { describe, expect, it } from "vitest";
import { isNativeToolKey, nativeExecutors } from "./index";

describe("nativeExecutors", () => {
  it("holds exactly the native tools, by exact key", () => {
    expect(Object.keys(nativeExecutors).sort()).toEqual(["calculate", "create_chart", "web_fetch", "web_search"]);
    for (const key of ["constructor", "__proto__", "toString", "hasOwnProperty", "Calculate", "calculate "]) {
      expect(isNativeToolKey(key)).toBe(false);
    }
    expect(Object.isFrozen(nativeExecutors)).toBe(true);
  });

  it("runs a tool through its registry entry, with the operator settings passed along", async () => {
    const signal = new AbortController().signal;
    await expect(nativeExecutors.calculate.execute({ expression: "2 ^ 10" }, { signal })).resolves.toEqual({
      expression: "2 ^ 10",
      result: 1024,
    });
    await expect(nativeExecutors.web_search.execute({ query: "q" }, { signal })).rejects.toMatchObject({
      code: "TOOL_UNAVAILABLE",
    });
    await expect(
      nativeExecutors.web_fetch.execute({ url: "http://localhost/" }, { signal, web: {} }),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENTS", field: "/url" });
  });
});
