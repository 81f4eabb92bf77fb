import { deflateSync } from "node:zlib";

/** A small real PDF with one text line per entry of `lines`, one page each; its content stream deflated or not. */
export function samplePdf(pages: string[][], deflate = true): Buffer {
  const objects: Buffer[] = [];
  const add = (body: Buffer | string) => objects.push(Buffer.isBuffer(body) ? body : Buffer.from(body, "latin1"));
  const pageIds = pages.map((_, i) => 3 + i * 2);
  add("<< /Type /Catalog /Pages 2 0 R >>");
  add(`<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] /Count ${pages.length} >>`);
  const fontId = 3 + pages.length * 2;
  pages.forEach((lines, i) => {
    add(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${pageIds[i] + 1} 0 R /Resources << /Font << /F1 ${fontId} 0 R >> >> >>`,
    );
    const escaped = lines.map((l) => `(${l.replace(/[\\()]/g, (c) => `\\${c}`)}) Tj 0 -14 Td`).join(" ");
    const content = Buffer.from(`BT /F1 12 Tf 72 720 Td ${escaped} ET`, "latin1");
    const data = deflate ? deflateSync(content) : content;
    add(
      Buffer.concat([
        Buffer.from(`<< /Length ${data.length}${deflate ? " /Filter /FlateDecode" : ""} >>\nstream\n`, "latin1"),
        data,
        Buffer.from("\nendstream", "latin1"),
      ]),
    );
  });
  add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  const parts: Buffer[] = [Buffer.from("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  objects.forEach((body, i) =>
    parts.push(Buffer.from(`${i + 1} 0 obj\n`, "latin1"), body, Buffer.from("\nendobj\n", "latin1")),
  );
  parts.push(Buffer.from(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\n%%EOF\n`, "latin1"));
  return Buffer.concat(parts);
}
