import "server-only";
import { createHash } from "node:crypto";
import { db, isUniqueViolation } from "@/lib/db";
import { principalId, type Principal } from "@/lib/auth/principal";
import { stringifyDeep } from "@/lib/json/deep";
import { answerText, setAnswerHeader, type Answer } from "./answer";
import { ApiError } from "./errors";

const KEY_TTL_MS = 24 * 60 * 60 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** What a "secret" record holds instead of the response body. */
export const SECRET_WITHHELD = "secret-withheld";

function requestHash(request: Request, rawBody: unknown): string {
  const url = new URL(request.url);
  // Multipart bodies are streamed, not buffered: their media type and length stand
  // for them (without the boundary, which a client draws anew on every retry).
  const mediaType = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  const body = rawBody === undefined ? `${mediaType}|${request.headers.get("content-length")}` : stringifyDeep(rawBody);
  return createHash("sha256").update(`${request.method} ${url.pathname}${url.search}\n${body}`).digest("hex");
}

/**
 * Stripe semantics for `Idempotency-Key` on POST: the first response is stored and
 * replayed for the same key and body; another body is `idempotency_key_reused`; a
 * duplicate that arrives while the first is still running is `request_in_progress`.
 * Refusals of the handler (4xx) are stored like successes; server errors (5xx)
 * are not, so the client may retry them. In "re-execute" mode no response body is
 * ever stored: a completed duplicate runs the handler again (the endpoint's own
 * domain makes that safe), still one at a time and still bound to the same body.
 * In "secret" mode a success response (which carries a secret shown once) is not
 * stored either: the record keeps SECRET_WITHHELD and a duplicate is refused, so
 * the secret can neither be fetched again nor read from the table.
 */
export async function withIdempotency(
  request: Request,
  principal: Principal,
  rawBody: unknown,
  run: () => Promise<Answer>,
  replay: "stored" | "re-execute" | "secret" = "stored",
): Promise<Answer> {
  const key = request.headers.get("idempotency-key");
  if (key === null) return run();
  if (!KEY_PATTERN.test(key)) {
    throw new ApiError("invalid_parameter", "Idempotency-Key must be 1 to 255 printable characters.", {
      errors: [{ field: "Idempotency-Key", code: "invalid_format", message: "1 to 255 printable ASCII characters." }],
    });
  }
  const scope = { organizationId: principal.organizationId, principal: principalId(principal), key };
  const hash = requestHash(request, rawBody);
  const now = new Date();
  const existing = await db.idempotentRequest.findUnique({ where: { organizationId_principal_key: scope } });
  if (existing && existing.expiresAt < now) {
    await db.idempotentRequest.deleteMany({ where: { id: existing.id, expiresAt: { lt: now } } });
  } else if (existing) {
    if (existing.requestHash !== hash) {
      throw new ApiError("idempotency_key_reused", "This Idempotency-Key was used with another request.");
    }
    if (existing.state !== "done" || existing.responseStatus === null) {
      throw new ApiError("request_in_progress", "A request with this Idempotency-Key is still being processed.");
    }
    if (replay === "re-execute") return reExecute(existing.id, run);
    if (existing.responseBody === SECRET_WITHHELD) {
      throw new ApiError(
        "idempotency_secret_not_replayable",
        "The first request with this Idempotency-Key succeeded and its response held a secret that is shown only once.",
      );
    }
    return new Response(existing.responseBody, {
      status: existing.responseStatus,
      headers: { "content-type": "application/json; charset=utf-8", "idempotent-replayed": "true" },
    });
  }
  let recordId: string;
  try {
    const record = await db.idempotentRequest.create({
      data: {
        ...scope,
        method: request.method,
        path: new URL(request.url).pathname,
        requestHash: hash,
        state: "in_progress",
        expiresAt: new Date(now.getTime() + KEY_TTL_MS),
      },
    });
    recordId = record.id;
  } catch (error) {
    if (isUniqueViolation(error))
      throw new ApiError("request_in_progress", "A request with this Idempotency-Key is still being processed.");
    throw error;
  }
  let response: Answer;
  try {
    response = await run();
  } catch (error) {
    await db.idempotentRequest.delete({ where: { id: recordId } });
    throw error;
  }
  if (response.status >= 500) {
    await db.idempotentRequest.delete({ where: { id: recordId } });
    return response;
  }
  const withholds = replay === "secret" && response.status < 300;
  const body = withholds ? SECRET_WITHHELD : replay === "re-execute" ? null : await answerText(response);
  await db.idempotentRequest.update({
    where: { id: recordId },
    data: { state: "done", responseStatus: response.status, responseBody: body },
  });
  return response;
}

/** Runs a completed request again, claiming the record first so duplicates still queue up as 409. */
async function reExecute(recordId: string, run: () => Promise<Answer>): Promise<Answer> {
  const claimed = await db.idempotentRequest.updateMany({
    where: { id: recordId, state: "done" },
    data: { state: "in_progress" },
  });
  if (claimed.count === 0)
    throw new ApiError("request_in_progress", "A request with this Idempotency-Key is still being processed.");
  try {
    const response = await run();
    setAnswerHeader(response, "idempotent-replayed", "re-executed");
    return response;
  } finally {
    await db.idempotentRequest.update({ where: { id: recordId }, data: { state: "done" } });
  }
}
