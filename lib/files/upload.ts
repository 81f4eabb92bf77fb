import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { Readable, Transform, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeWebReadableStream } from "node:stream/web";
import Busboy from "busboy";
import { ApiError } from "@/lib/http/errors";
import { newTempPath } from "./storage";

/** What file-type needs to recognize a binary format. */
const HEAD_BYTES = 4100;
/** Room for the multipart boundaries and part headers around the file itself. */
const MULTIPART_OVERHEAD = 64 * 1024;

export interface ReceivedUpload {
  tempPath: string;
  filename: string;
  bytes: number;
  sha256: string;
  head: Buffer;
  /** Valid UTF-8 without NUL bytes: a candidate text file. */
  text: boolean;
}

export const fileTooLarge = (maxBytes: number) =>
  new ApiError("file_too_large", `The file exceeds your plan's limit of ${maxBytes} bytes per file.`, {
    reason: { max_bytes: maxBytes },
  });

function invalidFile(code: string, message: string) {
  return new ApiError("invalid_parameter", message, { errors: [{ field: "file", code, message }] });
}

/**
 * A display name: the last path segment, without control characters nor bidi
 * controls (which make `invoice\u202Efdp.exe` display as `invoiceexe.pdf`), at
 * most 255 characters.
 */
export function cleanFilename(raw: string | undefined): string {
  const base = (raw ?? "").split(/[/\\]/).pop() ?? "";
  const clean = base
    .replace(/[\u0000-\u001f\u007f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "")
    .trim()
    .slice(0, 255);
  return clean || "file";
}

/** Hashes, counts and checks the bytes as they pass, on their way to the temp file. */
function inspector(maxBytes: number) {
  const hash = createHash("sha256");
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const state = { bytes: 0, head: Buffer.alloc(0), text: true, tooLarge: false };
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      state.bytes += chunk.length;
      if (state.bytes > maxBytes) {
        // Keep consuming (and dropping) so the parser reaches the end of the body.
        state.tooLarge = true;
        callback();
        return;
      }
      hash.update(chunk);
      if (state.head.length < HEAD_BYTES)
        state.head = Buffer.concat([state.head, chunk.subarray(0, HEAD_BYTES - state.head.length)]);
      if (state.text) {
        if (chunk.includes(0)) state.text = false;
        else {
          try {
            decoder.decode(chunk, { stream: true });
          } catch {
            state.text = false;
          }
        }
      }
      callback(null, chunk);
    },
    flush(callback) {
      if (state.text) {
        try {
          decoder.decode();
        } catch {
          state.text = false;
        }
      }
      callback();
    },
  });
  return { stream, state, digest: () => hash.digest("hex") };
}

/**
 * Streams the multipart body's one `file` part to a temp file under the data
 * directory, hashing and counting on the way. Nothing is held in memory beyond a
 * chunk; past `maxBytes` the upload stops with 413. On any failure — too large,
 * malformed, or the client going away mid-body — the temp file is removed.
 */
export async function receiveUpload(request: Request, maxBytes: number): Promise<ReceivedUpload> {
  const contentType = request.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw new ApiError("unsupported_media_type", "Send the file as multipart/form-data with one field named file.");
  }
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes + MULTIPART_OVERHEAD) throw fileTooLarge(maxBytes);
  if (!request.body) throw invalidFile("required", "The multipart body has no file field.");

  let parser: Writable;
  try {
    parser = Busboy({
      headers: { "content-type": contentType },
      defParamCharset: "utf8",
      limits: { files: 1, fields: 10, fieldSize: 1024, parts: 11, headerPairs: 20, fileSize: maxBytes + 1 },
    });
  } catch {
    throw new ApiError("bad_request", "Malformed multipart/form-data header (no boundary).");
  }

  const tempPath = await newTempPath();
  let problem: ApiError | null = null;
  let written: Promise<{ filename: string; inspected: ReturnType<typeof inspector> }> | null = null;
  parser.on("file", (name: string, stream: Readable, info: { filename?: string }) => {
    if (name !== "file" || written) {
      problem ??=
        name !== "file"
          ? new ApiError("unknown_parameter", `Unknown parameter: ${name}.`, {
              errors: [{ field: name, code: "unknown_parameter", message: `Unknown parameter: ${name}.` }],
            })
          : invalidFile("too_many_files", "Send one file per request.");
      stream.resume();
      return;
    }
    const inspected = inspector(maxBytes);
    written = pipeline(stream, inspected.stream, createWriteStream(tempPath, { flags: "wx" })).then(() => ({
      filename: cleanFilename(info.filename),
      inspected,
    }));
    written.catch(() => undefined); // awaited below; avoids an unhandled rejection meanwhile
  });
  parser.on("field", (name: string) => {
    problem ??=
      name === "file"
        ? invalidFile("not_a_file", "The file field must be a file part (with a filename).")
        : new ApiError("unknown_parameter", `Unknown parameter: ${name}.`, {
            errors: [{ field: name, code: "unknown_parameter", message: `Unknown parameter: ${name}.` }],
          });
  });
  parser.on("filesLimit", () => (problem ??= invalidFile("too_many_files", "Send one file per request.")));

  try {
    const body = Readable.fromWeb(request.body as unknown as NodeWebReadableStream<Uint8Array>);
    try {
      await pipeline(body, parser, { signal: request.signal });
    } catch (error) {
      if (request.signal.aborted) throw error;
      throw new ApiError("bad_request", "Malformed multipart/form-data body.");
    }
    if (problem) throw problem;
    if (!written) throw invalidFile("required", "The multipart body has no file field.");
    const { filename, inspected } = await (written as Promise<{
      filename: string;
      inspected: ReturnType<typeof inspector>;
    }>);
    if (inspected.state.tooLarge) throw fileTooLarge(maxBytes);
    if (inspected.state.bytes === 0) throw invalidFile("empty", "The file is empty.");
    return {
      tempPath,
      filename,
      bytes: inspected.state.bytes,
      sha256: inspected.digest(),
      head: inspected.state.head,
      text: inspected.state.text,
    };
  } catch (error) {
    // The write stream opens the temp file asynchronously: let it settle before removing.
    if (written) await (written as Promise<unknown>).catch(() => undefined);
    await rm(tempPath, { force: true });
    throw error;
  }
}
