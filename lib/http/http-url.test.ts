import { describe, expect, it } from "vitest";
import { httpUrl } from "./http-url";

describe("httpUrl", () => {
  it("keeps absolute http(s) URLs, trimmed", () => {
    expect(httpUrl().parse("  https://crm.example/mcp ")).toBe("https://crm.example/mcp");
    expect(httpUrl().parse("http://127.0.0.1:4010/mcp")).toBe("http://127.0.0.1:4010/mcp");
  });

  it.each([
    "ftp://crm.example/",
    "javascript:alert(1)",
    "/relative",
    "crm.example",
    "",
    `https://a.example/${"x".repeat(2000)}`,
  ])("refuses %s", (value) => {
    expect(httpUrl().safeParse(value).success).toBe(false);
  });

  it("refuses credentials in the URL only where asked", () => {
    const withUser = "https://user:secret@llm.example/v1";
    expect(httpUrl().safeParse(withUser).success).toBe(true);
    const refused = httpUrl({ credentials: "refused" }).safeParse(withUser);
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0].message).toBe("Must be an absolute http(s) URL without credentials.");
  });
});
