import { EventSourceParserStream } from "eventsource-parser/stream";
import type { z } from "zod";
import type { Endpoint } from "@/lib/http/endpoint";
import { endpointUrl, type CallInput } from "./call";
import { errorFromResponse, readPayload } from "./errors";

// The console's way to read a Server-Sent Events answer of /v1 (a streamed run,
// a run's events). fetch rather than EventSource: a run starts with a POST and
// a JSON body, and a refusal before the stream is the usual JSON envelope,
// thrown as ApiClientError like `call` does. Each event's data is checked with
// the schema the endpoint's declaration gives for its name.

export interface StreamedEvent {
  id: number;
  event: string;
  data: unknown;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as in call.ts: any endpoint whatever its schemas
type StreamEndpoint = Endpoint<any, any, any, any>;

/**
 * Calls a streaming endpoint and hands each event to `onEvent` as it arrives;
 * resolves when the server ends the stream. `lastEventId` resumes after that event.
 */
export async function streamEvents<E extends StreamEndpoint>(
  endpoint: E,
  input: CallInput<E> & { lastEventId?: number },
  onEvent: (event: StreamedEvent) => void,
): Promise<void> {
  const declared: Record<string, z.ZodType> | undefined = endpoint.eventStream?.events;
  if (!declared) throw new Error(`${endpoint.path} declares no event stream.`);
  const hasBody = input.body !== undefined;
  const response = await fetch(endpointUrl(endpoint, input.params, input.query), {
    method: endpoint.method,
    headers: {
      accept: "text/event-stream",
      ...(hasBody ? { "content-type": "application/json" } : {}),
      ...(input.lastEventId ? { "last-event-id": String(input.lastEventId) } : {}),
    },
    body: hasBody ? JSON.stringify(input.body) : undefined,
    credentials: "same-origin",
    signal: input.signal,
  });
  if (!response.ok || !response.body) {
    throw errorFromResponse(response.status, await readPayload(response));
  }
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  for (;;) {
    const { done, value: message } = await reader.read();
    if (done) return;
    const schema = message.event ? declared[message.event] : undefined;
    // An event this console does not know yet (a newer server) is skipped, not fatal.
    if (!schema) continue;
    onEvent({ id: Number(message.id), event: message.event!, data: schema.parse(JSON.parse(message.data)) });
  }
}
