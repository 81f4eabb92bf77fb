import type { IncomingMessage, ServerResponse } from "node:http";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { BodyTooLarge, readBody, sendJson } from "./http";
import type { Store } from "./store";
import type { SchemaVariant } from "./schemas";
import { compile, describeErrors } from "./validate";

// Switchable faults and the test control API (/__control/*, only when enabled).

export interface Faults {
  /** The write transaction commits, then the HTTP connection is destroyed before any response. */
  cut_after_commit: boolean;
  /** A successful call answers a structuredContent that does not match its outputSchema. */
  malformed_success: boolean;
  /** Every tools/call waits this many ms before doing anything. */
  slow_ms: number;
  /** get_operation_status answers HTTP 503. */
  status_down: boolean;
  /**
   * 2: get_customer publishes a changed input/output schema and description (an optional `include`).
   * 3: a breaking change of 2: `include` becomes required and its enum loses "orders_count".
   */
  tool_schema_variant: SchemaVariant;
  /** Write tools wait before doing anything until this is switched off (reads and status keep answering). */
  hold_writes: boolean;
  /** Long jobs (suspend_all_invoice_delivery) stay running until this is switched off. */
  hold_jobs: boolean;
}

export const noFaults = (): Faults => ({
  cut_after_commit: false,
  malformed_success: false,
  slow_ms: 0,
  status_down: false,
  tool_schema_variant: 1,
  hold_writes: false,
  hold_jobs: false,
});

const faultsPatch = {
  type: "object",
  additionalProperties: false,
  properties: {
    cut_after_commit: { type: "boolean" },
    malformed_success: { type: "boolean" },
    slow_ms: { type: "integer", minimum: 0, maximum: 600_000 },
    status_down: { type: "boolean" },
    tool_schema_variant: { type: "integer", enum: [1, 2, 3] },
    hold_writes: { type: "boolean" },
    hold_jobs: { type: "boolean" },
  },
};
const resetBody = { type: "object", additionalProperties: false, properties: { data: { type: "boolean" } } };

/**
 * A "success" whose structuredContent breaks the tool's outputSchema: top-level
 * numbers become strings, `new_version` disappears, an undeclared field appears.
 */
export function malform(result: CallToolResult): CallToolResult {
  const bad: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(result.structuredContent ?? {})) {
    if (k === "new_version") continue;
    bad[k] = typeof v === "number" ? String(v) : v;
  }
  bad.unexpected_field = "malformed_success fault";
  return { content: [{ type: "text", text: JSON.stringify(bad) }], structuredContent: bad };
}

export interface ControlDeps {
  store: Store;
  getFaults(): Faults;
  setFaults(f: Faults): void;
  /** How many write calls `hold_writes` is holding right now. */
  heldWrites(): number;
  /** MCP sessions: how many `initialize` requests arrived, and a way to expire every open session. */
  sessions: { stats(): Record<string, number>; expire(): number };
}

async function readJsonObject(req: IncomingMessage, schema: Record<string, unknown>): Promise<Record<string, unknown>> {
  const text = await readBody(req, 64 * 1024);
  const value = text.trim() === "" ? {} : JSON.parse(text);
  const fn = compile(schema);
  if (!fn(value)) {
    const { field, message } = describeErrors(fn.errors ?? []);
    throw new ControlError(400, `${field || "/"}: ${message}`);
  }
  return value as Record<string, unknown>;
}

class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Handles /__control/* (caller checked the control API is enabled). */
export async function handleControl(req: IncomingMessage, res: ServerResponse, pathname: string, deps: ControlDeps) {
  try {
    const method = req.method ?? "GET";
    if (pathname === "/__control/faults" && method === "GET") return sendJson(res, 200, deps.getFaults());
    if (pathname === "/__control/faults" && method === "POST") {
      const patch = (await readJsonObject(req, faultsPatch)) as Partial<Faults>; // validated just above
      deps.setFaults({ ...deps.getFaults(), ...patch });
      return sendJson(res, 200, deps.getFaults());
    }
    if (pathname === "/__control/reset" && method === "POST") {
      const body = await readJsonObject(req, resetBody);
      deps.setFaults(noFaults());
      if (body.data === true) deps.store.resetData();
      return sendJson(res, 200, { faults: deps.getFaults(), data_reset: body.data === true });
    }
    if (pathname === "/__control/state" && method === "GET") return sendJson(res, 200, deps.store.dumpState());
    if (pathname === "/__control/sessions" && method === "GET") return sendJson(res, 200, deps.sessions.stats());
    if (pathname === "/__control/sessions/expire" && method === "POST")
      return sendJson(res, 200, { expired: deps.sessions.expire() });
    if (pathname === "/__control/held" && method === "GET") return sendJson(res, 200, { writes: deps.heldWrites() });
    const touch = /^\/__control\/customers\/([^/]+)\/touch$/.exec(pathname);
    if (touch && method === "POST") {
      const id = decodeURIComponent(touch[1]);
      const version = deps.store.touchCustomer(id);
      if (version === null) return sendJson(res, 404, { error: `customer ${id} not found` });
      return sendJson(res, 200, { customer_id: id, version });
    }
    return sendJson(res, 404, { error: "not found" });
  } catch (e) {
    if (e instanceof ControlError) return sendJson(res, e.status, { error: e.message });
    if (e instanceof BodyTooLarge) return sendJson(res, 413, { error: e.message });
    if (e instanceof SyntaxError) return sendJson(res, 400, { error: "body is not JSON" });
    throw e;
  }
}
