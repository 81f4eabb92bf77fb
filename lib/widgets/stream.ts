import "server-only";
import { EVENT_STREAM_HEADERS, runEventStream } from "@/lib/agent-loop/event-stream";
import { WAITING_MESSAGE } from "./conversations";
import { refusalForVisitor, runRefusals, type RunRefusal } from "./refusal";

// What a visitor sees of a run as it goes: the model's text, that something is
// in progress, that a write waits for an advisor, the answer or a plain
// failure. Never a tool's name, arguments or result — the run's events are
// read as they are stored (re-attach with Last-Event-ID) and translated here.
// After a refused write the model's text is held back and the end is said as
// `refused` (its reason and the model's answer only when shareable).

export { EVENT_STREAM_HEADERS };

function frame(id: number, event: string, data: unknown): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function translate(type: string, data: unknown, language: "fr" | "en"): { event: string; data: unknown } | null {
  const payload = (data ?? {}) as Record<string, unknown>;
  switch (type) {
    case "message.delta":
      return { event: "delta", data: { text: String(payload.content ?? "") } };
    case "tool_call.started":
      return { event: "progress", data: {} };
    case "run.requires_approval":
      return { event: "waiting", data: { message: WAITING_MESSAGE[language] } };
    case "run.completed": {
      const output = (payload.output ?? {}) as { text?: unknown };
      return { event: "done", data: { text: typeof output.text === "string" ? output.text : "" } };
    }
    case "run.failed":
      return {
        event: "failed",
        data: {
          message:
            language === "en"
              ? "The assistant could not answer. Please try again."
              : "L'assistant n'a pas pu répondre. Réessayez.",
        },
      };
    default:
      return null;
  }
}

/** The visitor's stream of one message's run, after `afterSeq`; `opening` is sent first when given. */
export function visitorEventStream(
  run: { id: string; organizationId: string },
  afterSeq: number,
  language: "fr" | "en",
  opening?: { event: string; data: unknown },
): ReadableStream<Uint8Array> {
  const source = runEventStream(run, afterSeq).getReader();
  // Whether the run had a write refused: only a decision can change it, so it is read again after each wait.
  // A stream read from the start has seen every wait; one re-attached later may have missed one.
  let mayBeRefused = afterSeq > 0;
  let refusal: Promise<RunRefusal | null> | null = null;
  const refused = () =>
    mayBeRefused
      ? (refusal ??= runRefusals(run.organizationId, [run.id]).then((found) => found.get(run.id) ?? null))
      : Promise.resolve(null);
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffer = "";
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (opening) controller.enqueue(encoder.encode(frame(afterSeq, opening.event, opening.data)));
    },
    async pull(controller) {
      for (;;) {
        const { done, value } = await source.read();
        if (done) return controller.close();
        buffer += decoder.decode(value, { stream: true });
        let sent = false;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(":")) {
            controller.enqueue(encoder.encode(": keep-alive\n\n"));
            sent = true;
            continue;
          }
          const fields = Object.fromEntries(
            block.split("\n").map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)]),
          );
          const type = fields.event ?? "";
          const data: unknown = JSON.parse(fields.data ?? "null");
          if (type === "run.requires_approval") {
            mayBeRefused = true;
            refusal = null;
          }
          let translated = translate(type, data, language);
          if (!translated) continue;
          if (translated.event === "delta" || translated.event === "done") {
            const found = await refused();
            if (found && translated.event === "delta") continue;
            if (found) {
              const answer = (translated.data as { text: string }).text;
              translated = { event: "refused", data: refusalForVisitor(found, answer, language) };
            }
          }
          controller.enqueue(encoder.encode(frame(Number(fields.id), translated.event, translated.data)));
          sent = true;
        }
        if (sent) return;
      }
    },
    cancel() {
      void source.cancel();
    },
  });
}
