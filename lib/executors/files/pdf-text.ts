import { inflateSync } from "node:zlib";

// A deliberately small PDF text reader: it inflates content streams and reads
// the strings of the text-showing operators (Tj, TJ, ', "). It covers PDFs
// written with standard fonts (reports, exports); text drawn with embedded CID
// fonts comes out empty, which the file tools report rather than guess.

const STREAM = /<<([\s\S]*?)>>\s*stream\r?\n([\s\S]*?)\r?\nendstream/g;

export function pdfPageCount(bytes: Buffer): number {
  const matches = bytes.toString("latin1").match(/\/Type\s*\/Page(?![a-zA-Z])/g);
  return matches ? matches.length : 0;
}

export function pdfText(bytes: Buffer): string {
  const source = bytes.toString("latin1");
  const parts: string[] = [];
  for (const match of source.matchAll(STREAM)) {
    const [, dictionary, raw] = match;
    if (/\/(Subtype\s*\/Image|Type\s*\/XObject|Length1|FontFile)/.test(dictionary)) continue;
    let content: string;
    try {
      content = /\/FlateDecode/.test(dictionary) ? inflateSync(Buffer.from(raw, "latin1")).toString("latin1") : raw;
    } catch {
      continue;
    }
    const text = contentText(content);
    if (text.trim()) parts.push(text.trim());
  }
  return parts
    .join("\n\n")
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function contentText(content: string): string {
  let out = "";
  const tokens = /\((?:\\.|[^\\)])*\)|\[(?:\((?:\\.|[^\\)])*\)|[^\]])*\]\s*TJ|T\*|Td|TD|ET|'|"/g;
  for (const token of content.match(tokens) ?? []) {
    if (token === "T*" || token === "Td" || token === "TD" || token === "ET" || token === "'" || token === '"') {
      if (!out.endsWith("\n")) out += "\n";
    } else if (token.startsWith("[")) {
      for (const piece of token.match(/\((?:\\.|[^\\)])*\)|-?\d+(?:\.\d+)?/g) ?? []) {
        if (piece.startsWith("(")) out += unescapePdfString(piece.slice(1, -1));
        else if (Number(piece) < -200) out += " ";
      }
    } else {
      out += unescapePdfString(token.slice(1, -1));
    }
  }
  return out;
}

function unescapePdfString(value: string): string {
  return value.replace(/\\([nrtbf()\\]|[0-7]{1,3}|\r?\n)/g, (_, escape: string) => {
    switch (escape) {
      case "n":
        return "\n";
      case "r":
        return "\r";
      case "t":
        return "\t";
      case "b":
        return "\b";
      case "f":
        return "\f";
      case "(":
        return "(";
      case ")":
        return ")";
      case "\\":
        return "\\";
      default:
        return /^[0-7]+$/.test(escape) ? String.fromCharCode(parseInt(escape, 8)) : "";
    }
  });
}
