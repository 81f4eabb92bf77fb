import { describe, expect, it } from "vitest";
import { auditCsvRow, csvCell } from "./csv";

describe("audit CSV cells", () => {
  it.each([
    ['=HYPERLINK("http://evil")', '"\'=HYPERLINK(""http://evil"")"'],
    ["+33 1 23", '"\'+33 1 23"'],
    ["-2+3", '"\'-2+3"'],
    ["@SUM(A1)", '"\'@SUM(A1)"'],
    ["\tcmd", '"\'\tcmd"'],
    ["plain, with comma", '"plain, with comma"'],
    ["two\nlines", '"two\nlines"'],
    ["a@b.example", '"a@b.example"'],
  ])("writes %j as %s", (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });

  it("writes null as an empty cell and a row ending with CRLF, with the action's French label", () => {
    expect(csvCell(null)).toBe('""');
    const row = auditCsvRow({
      id: "aud_1",
      action: "api_key.created",
      actor: { type: "member", id: "mem_1", label: "=1+1@x.example" },
      target: { type: "api_key", id: "key_1" },
      details: { name: "CI" },
      created_at: "2026-12-02T10:00:00.000+00:00",
    });
    expect(row).toBe(
      '"2026-12-02T10:00:00.000+00:00","api_key.created","Clé API créée","member","\'=1+1@x.example","mem_1","api_key","key_1","{""name"":""CI""}"\r\n',
    );
  });
});
