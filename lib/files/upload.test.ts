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
  ])("%j → %j", (raw, clean) => {
    expect(cleanFilename(raw)).toBe(clean);
  });
});
