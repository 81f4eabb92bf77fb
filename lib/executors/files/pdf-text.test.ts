import { describe, expect, it } from "vitest";
import { samplePdf } from "@/tests/support/pdf";
import { pdfPageCount, pdfText } from "./pdf-text";

describe("pdf text", () => {
  it("reads the text lines of deflated and plain content streams, page by page", () => {
    for (const deflate of [true, false]) {
      const pdf = samplePdf([["Facture Acme 2026", "Total (TTC): 1 250 EUR"], ["Page deux"]], deflate);
      expect(pdfText(pdf)).toBe("Facture Acme 2026\nTotal (TTC): 1 250 EUR\n\nPage deux");
      expect(pdfPageCount(pdf)).toBe(2);
    }
  });

  it("returns nothing rather than garbage for bytes that are not a PDF text stream", () => {
    expect(pdfText(Buffer.from("%PDF-1.4\n<< /Length 3 /Filter /FlateDecode >>\nstream\nxyz\nendstream"))).toBe("");
  });
});
