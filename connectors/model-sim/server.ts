import { randomBytes, timingSafeEqual } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { completionChunks, completionObject, renderTurn } from "./completion";
import { ChatRequest, conversationText, errorBody } from "./protocol";
import { LAST_TOOL_RESULT, resolveToolName, SCRIPT_MARKER, ScriptBody, type Turn } from "./script";

// model-sim: an OpenAI-compatible chat-completions server whose answers are
// scripted. It stands for an external model provider, like CRM Acme stands for
// a customer's system: it imports nothing from Guichet, and Guichet reaches it
// only through the provider client, so the tests prove the real protocol.

export interface ModelSimOptions {
  /** 0 = a free port. */
  port?: number;
  host?: string;
  /** When set, /v1/* requires `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Model ids listed by GET /v1/models (any id is accepted by chat completions). */
  models?: string[];
  /** Answers conversations that carry no `sim:<id>` marker (the demo's script). */
  defaultScript?: ScriptBody;
  /** Scripts selected by their fixed marker `sim:<id>` (`demo_…`): the demo's agents carry them in their instructions. */
  namedScripts?: Record<string, ScriptBody>;
  /** Enables /__control/* (create scripts, read what they received). */
  enableControl?: boolean;
}

export interface ModelSimServer {
  /** http://HOST:PORT/v1: the base URL a client is configured with. */
  url: string;
  baseUrl: string;
  close(): Promise<void>;
}

interface Script {
  id: string;
  body: ScriptBody;
  served: number;
  requests: ChatRequest[];
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const MAX_RECORDED = 200;

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new SyntaxError(`body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

function bearerMatches(header: string | undefined, key: string): boolean {
  const given = Buffer.from(/^Bearer (.+)$/.exec(header ?? "")?.[1] ?? "");
  const expected = Buffer.from(key);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** `{{last_tool_result}}` in a turn's text becomes what the request's last tool message said, as it said it. */
function quoteLastToolResult<T extends Turn>(turn: T, request: ChatRequest): T {
  if (!("text" in turn) || !turn.text?.includes(LAST_TOOL_RESULT)) return turn;
  const last = request.messages.findLast((message) => message.role === "tool");
  const said = last ? conversationText([last]) : "";
  return { ...turn, text: turn.text.replaceAll(LAST_TOOL_RESULT, said) };
}

export async function startModelSim(options: ModelSimOptions = {}): Promise<ModelSimServer> {
  const scripts = new Map<string, Script>(
    Object.entries(options.namedScripts ?? {}).map(([id, body]) => [id, { id, body, served: 0, requests: [] }]),
  );
  const fallback: Script | null = options.defaultScript
    ? { id: "default", body: options.defaultScript, served: 0, requests: [] }
    : null;
  const models = options.models ?? ["model-sim"];
  const timers = new Set<() => void>();

  /** A delay that ends early when the client goes away or the server closes. */
  const delay = (ms: number, res: ServerResponse) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        timers.delete(done);
        res.off("close", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timers.add(done);
      res.on("close", done);
    });

  function nextTurn(script: Script, request: ChatRequest): Turn | null {
    const assistantsAfter = (from: number) =>
      request.messages.slice(from).filter((message) => message.role === "assistant").length;
    const index =
      script.body.replay === "by_conversation"
        ? assistantsAfter(0)
        : script.body.replay === "by_user_turn"
          ? assistantsAfter(request.messages.findLastIndex((message) => message.role === "user") + 1)
          : script.served;
    script.served += 1;
    return script.body.turns[index] ?? null;
  }

  async function chatCompletion(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw: unknown;
    try {
      raw = await readJson(req);
    } catch {
      return send(res, 400, errorBody(400, "The body is not valid JSON."));
    }
    const parsed = ChatRequest.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return send(
        res,
        400,
        errorBody(
          400,
          `Invalid request at ${issue.path.join(".") || "/"}: ${issue.message}`,
          issue.path.join(".") || null,
        ),
      );
    }
    const request = parsed.data;
    const marker = SCRIPT_MARKER.exec(conversationText(request.messages))?.[1];
    const script = marker ? scripts.get(marker) : fallback;
    if (!script)
      return send(
        res,
        400,
        errorBody(
          400,
          marker
            ? `No script ${marker}.`
            : "No script selected: put sim:<id> in a message, or start model-sim with a default script.",
        ),
      );
    if (script.requests.length < MAX_RECORDED) script.requests.push(request);
    const turn = nextTurn(script, request);
    if (!turn)
      return send(res, 500, errorBody(500, `Script ${script.id} has no turn left (${script.served - 1} served).`));
    if (turn.delay_ms) await delay(turn.delay_ms, res);
    if (res.destroyed) return;
    if ("error" in turn)
      return send(
        res,
        turn.error.status,
        errorBody(turn.error.status, turn.error.message ?? `Scripted error ${turn.error.status}.`),
      );
    let answer = quoteLastToolResult(turn, request);
    if ("tool_calls" in turn) {
      // `mcp_*_get_customer`: the offered tool of that shape (the demo's script does not know the server's id).
      const offered = (request.tools ?? []).map((tool) => tool.function.name);
      const calls = [];
      for (const call of turn.tool_calls) {
        const resolved = resolveToolName(call.name, offered);
        if ("error" in resolved && turn.when_not_offered !== undefined) {
          calls.length = 0;
          break;
        }
        if ("error" in resolved) return send(res, 400, errorBody(400, resolved.error, "tools"));
        calls.push({ ...call, name: resolved.name });
      }
      answer = calls.length ? { ...turn, tool_calls: calls } : { text: turn.when_not_offered ?? "", usage: turn.usage };
    }
    const completion = renderTurn(request, answer);
    if (!request.stream) return send(res, 200, completionObject(completion));
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    for (const chunk of completionChunks(completion, request.stream_options?.include_usage === true))
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    res.end("data: [DONE]\n\n");
  }

  async function control(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (req.method === "POST" && path === "/__control/scripts") {
      let raw: unknown;
      try {
        raw = await readJson(req);
      } catch {
        return send(res, 400, { error: "invalid JSON" });
      }
      const parsed = ScriptBody.safeParse(raw);
      if (!parsed.success)
        return send(res, 400, {
          error: parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; "),
        });
      const id = `scr_${randomBytes(6).toString("hex")}`;
      scripts.set(id, { id, body: parsed.data, served: 0, requests: [] });
      return send(res, 201, { id, marker: `sim:${id}` });
    }
    const match = /^\/__control\/scripts\/([a-z0-9_]+)$/.exec(path);
    const script = match ? (match[1] === "default" ? fallback : scripts.get(match[1])) : undefined;
    if (req.method === "GET" && script)
      return send(res, 200, { id: script.id, served: script.served, requests: script.requests });
    return send(res, 404, { error: "not found" });
  }

  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://model-sim").pathname;
    const handle = async () => {
      if (path.startsWith("/__control/")) {
        if (!options.enableControl) return send(res, 404, { error: "not found" });
        return control(req, res, path);
      }
      if (options.apiKey && !bearerMatches(req.headers.authorization, options.apiKey)) {
        return send(res, 401, errorBody(401, "Incorrect API key provided."));
      }
      if (req.method === "POST" && path === "/v1/chat/completions") return chatCompletion(req, res);
      if (req.method === "GET" && path === "/v1/models") {
        return send(res, 200, {
          object: "list",
          data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "model-sim" })),
        });
      }
      return send(res, 404, errorBody(404, `Unknown route ${req.method} ${path}.`));
    };
    handle().catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, errorBody(500, error instanceof Error ? error.message : "internal error"));
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://${options.host ?? "127.0.0.1"}:${port}`;
  return {
    url: `${baseUrl}/v1`,
    baseUrl,
    close: () =>
      new Promise<void>((resolve) => {
        for (const wake of [...timers]) wake();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
