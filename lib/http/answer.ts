// What `handle()` answers before it becomes a Web Response. Most answers are a
// status, a few headers and a JSON text: Next's plane turns them into a
// Response, the data plane (server/data-plane.mjs) writes them to the socket as
// they are, without building a Response, its Headers and a stream over its body
// only to read them back. Anything else (a stream, a download, a redirect) is
// a Response on both planes.

/** Marks a JsonAnswer for the data plane, which is plain JavaScript outside the build. */
const JSON_ANSWER = Symbol.for("guichet.jsonAnswer");

/** Where handle() exposes its answer before the Response, on the function Next calls. */
export const ANSWER_ENTRY = Symbol.for("guichet.answerEntry");

export class JsonAnswer {
  readonly [JSON_ANSWER] = true;
  /** Header names in lower case. */
  readonly headers: Record<string, string>;

  constructor(
    readonly status: number,
    readonly body: string,
    headers: Record<string, string> = {},
  ) {
    this.headers = { "content-type": "application/json; charset=utf-8" };
    for (const name in headers) this.headers[name.toLowerCase()] = headers[name];
  }
}

export type Answer = Response | JsonAnswer;

export function jsonAnswer(body: unknown, status = 200, headers?: Record<string, string>): JsonAnswer {
  return new JsonAnswer(status, JSON.stringify(body) ?? "", headers);
}

export function setAnswerHeader(answer: Answer, name: string, value: string) {
  if (answer instanceof JsonAnswer) answer.headers[name.toLowerCase()] = value;
  else answer.headers.set(name, value);
}

/** The answer's body as text, the answer itself left readable. */
export function answerText(answer: Answer): Promise<string> {
  return answer instanceof JsonAnswer ? Promise.resolve(answer.body) : answer.clone().text();
}

export function asResponse(answer: Answer): Response {
  if (!(answer instanceof JsonAnswer)) return answer;
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}
