// Readable text out of an HTML page, without a DOM: web_fetch must never hand
// markup to a model, and a regex pass is enough for reading (not rendering).
// Known gap: the charset is taken from the Content-Type header only, not from
// <meta charset>.

// Every pattern stops at the next "<" where it can, so a hostile page full of
// unclosed tags costs linear, not quadratic, time.
const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
// Elements whose content is never text a reader sees; an unclosed one runs to
// the end, as a browser would treat an unclosed <script>.
const HIDDEN_ELEMENT = /<(script|style|noscript|svg|template|iframe|object|title)\b[^<>]*>[\s\S]*?(?:<\/\1\s*>|$)/gi;
const TITLE = /<title\b[^<>]*>([^<]*)<\/title\s*>/i;
// A tag, with quoted attribute values that may contain ">". The alternatives
// start with different characters so a failed match cannot backtrack wildly.
const TAG = /<\/?[A-Za-z](?:[^<>"']|"[^<"]*"|'[^<']*')*>/g;
const DECLARATION = /<[!?][^<>]*>/g;
// A tag start never closed before the next "<": a browser would swallow it as
// markup, so it is not text either.
const BROKEN_TAG = /<\/?[A-Za-z][^<>]*(?=<|$)/g;
const BLOCK_TAG =
  /<\/?(?:p|div|br|hr|li|ul|ol|dl|dt|dd|h[1-6]|tr|table|thead|tbody|section|article|aside|header|footer|nav|main|blockquote|pre|figure|figcaption|form|fieldset|details|summary|address)\b/gi;

const NAMED_ENTITIES = new Map<string, string>([
  ["amp", "&"],
  ["lt", "<"],
  ["gt", ">"],
  ["quot", '"'],
  ["apos", "'"],
  ["nbsp", " "],
  ["copy", "©"],
  ["reg", "®"],
  ["trade", "™"],
  ["hellip", "…"],
  ["mdash", "—"],
  ["ndash", "–"],
  ["lsquo", "‘"],
  ["rsquo", "’"],
  ["ldquo", "“"],
  ["rdquo", "”"],
  ["laquo", "«"],
  ["raquo", "»"],
  ["euro", "€"],
  ["pound", "£"],
  ["yen", "¥"],
  ["cent", "¢"],
  ["deg", "°"],
  ["middot", "·"],
  ["bull", "•"],
  ["times", "×"],
  ["divide", "÷"],
  ["para", "¶"],
  ["sect", "§"],
  ["shy", ""],
  ["thinsp", " "],
  ["ensp", " "],
  ["emsp", " "],
  ["agrave", "à"],
  ["aacute", "á"],
  ["acirc", "â"],
  ["auml", "ä"],
  ["ccedil", "ç"],
  ["egrave", "è"],
  ["eacute", "é"],
  ["ecirc", "ê"],
  ["euml", "ë"],
  ["icirc", "î"],
  ["iuml", "ï"],
  ["ocirc", "ô"],
  ["ouml", "ö"],
  ["ugrave", "ù"],
  ["ucirc", "û"],
  ["uuml", "ü"],
  ["yuml", "ÿ"],
  ["oelig", "œ"],
  ["aelig", "æ"],
  ["Agrave", "À"],
  ["Aacute", "Á"],
  ["Acirc", "Â"],
  ["Ccedil", "Ç"],
  ["Egrave", "È"],
  ["Eacute", "É"],
  ["Ecirc", "Ê"],
  ["Icirc", "Î"],
  ["Ocirc", "Ô"],
  ["Ugrave", "Ù"],
  ["Ucirc", "Û"],
  ["OElig", "Œ"],
  ["AElig", "Æ"],
]);

/** Decodes named (common set) and numeric character references; unknown ones stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z][a-z0-9]*);/gi, (whole, ref: string) => {
    if (ref[0] !== "#") return NAMED_ENTITIES.get(ref) ?? whole;
    const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
    return valid ? String.fromCodePoint(code) : "\uFFFD";
  });
}

/** Collapses runs of spaces inside lines and drops blank lines: one line per block of text. */
export function collapseWhitespace(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.replace(/[^\S\n]+/g, " ").trim())
    .join("\n")
    .replace(/\n{2,}/g, "\n")
    .trim();
}

export function htmlToText(html: string): { title: string | null; text: string } {
  const withoutComments = html.replace(COMMENT, "");
  const titleMatch = TITLE.exec(withoutComments);
  const title = titleMatch ? collapseWhitespace(decodeEntities(titleMatch[1])).replace(/\n/g, " ") : "";
  const text = withoutComments
    .replace(HIDDEN_ELEMENT, " ")
    .replace(BLOCK_TAG, "\n$&")
    .replace(BROKEN_TAG, " ")
    .replace(TAG, " ")
    .replace(DECLARATION, " ");
  return { title: title || null, text: collapseWhitespace(decodeEntities(text)) };
}
