import { describe, expect, it } from "vitest";
import { cleanFilename } from "./upload";

describe("cleanFilename", () => {
  it.each([
    ["notes.txt", "notes.txt"],
    ["C:\\Users\\ada\\rapport final.pdf", "rapport final.pdf"],
    ["../../etc/passwd", "passwd"],
    ["tab\tand\nnewline.md", "tabandnewline.md"],
    ["", "file"],
    [undefined, "file"],
    ["   ", "file"],
    ["é".repeat(300), "é".repeat(255)],
    ["invoice\u202Efdp.exe", "invoicefdp.exe"],
    ["\u2066a\u2069\u200eb\u200f\u061cc\u202a\u202b\u202c\u202d.txt", "abc.txt"],
  ])("%j → %j", (raw, clean) => {
    expect(cleanFilename(raw)).toBe(clean);
  });
});
