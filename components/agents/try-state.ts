import type { RequiredAction } from "@/lib/runs/schemas";
import type { RunEvent } from "@/lib/runs/event-schemas";

// The "Essayer" panel's conversation, rebuilt from a run's events: a pure
// reducer, so what the panel shows is exactly what the stream said.

export type TryItem =
  | { kind: "user"; text: string }
  | { kind: "assistant"; text: string }
  | {
      kind: "tool";
      id: string;
      tool: string;
      client: boolean;
      status: "running" | "ok" | "error";
      errorCode: string | null;
      durationMs: number | null;
      proposal: string | null;
    }
  | { kind: "failure"; code: string; message: string };

export type TryStatus =
  "idle" | "streaming" | "requires_action" | "resuming" | "requires_approval" | "completed" | "failed" | "stopped";

/** A tool the run left out, and why (with where to connect it, for a connector that acts as each member). */
export type RunWarning = Extract<RunEvent, { event: "run.created" }>["data"]["warnings"][number];

export interface TryState {
  runId: string | null;
  lastEventId: number;
  status: TryStatus;
  items: TryItem[];
  pending: RequiredAction["tool_calls"];
  proposals: string[];
  /** What the last run left out of its tools. */
  warnings: RunWarning[];
}

export const initialTryState: TryState = {
  runId: null,
  lastEventId: 0,
  status: "idle",
  items: [],
  pending: [],
  proposals: [],
  warnings: [],
};

export type TryAction =
  | { type: "send"; text: string }
  | { type: "event"; event: RunEvent }
  | { type: "status"; status: TryStatus }
  | { type: "restore"; state: TryState }
  | { type: "reset" };

function withEvent(state: TryState, event: RunEvent): TryState {
  // A re-attached stream may overlap what was already shown: each event counts once.
  if (event.id <= state.lastEventId) return state;
  const next = { ...state, lastEventId: event.id };
  const items = state.items;
  switch (event.event) {
    case "run.created":
      return { ...next, runId: event.data.run, status: "streaming", warnings: event.data.warnings };
    case "message.delta": {
      const last = items.at(-1);
      if (last?.kind === "assistant")
        return { ...next, items: [...items.slice(0, -1), { ...last, text: last.text + event.data.content }] };
      return { ...next, status: "streaming", items: [...items, { kind: "assistant", text: event.data.content }] };
    }
    case "tool_call.started":
      return {
        ...next,
        status: "streaming",
        items: [
          ...items,
          {
            kind: "tool",
            id: event.data.tool_call_id,
            tool: event.data.tool,
            client: event.data.client,
            status: "running",
            errorCode: null,
            durationMs: null,
            proposal: null,
          },
        ],
      };
    case "tool_call.completed": {
      // The latest step of that call: after an approval, the commit reports under the held call's id.
      const index = items.findLastIndex((item) => item.kind === "tool" && item.id === event.data.tool_call_id);
      return {
        ...next,
        status: "streaming",
        items: items.map((item, at) =>
          at === index && item.kind === "tool"
            ? {
                ...item,
                status: event.data.status,
                errorCode: event.data.error_code,
                durationMs: event.data.duration_ms,
                proposal: event.data.proposal,
              }
            : item,
        ),
      };
    }
    case "run.requires_action":
      return { ...next, status: "requires_action", pending: event.data.required_action.tool_calls };
    case "run.requires_approval":
      return { ...next, status: "requires_approval", proposals: event.data.proposals };
    case "run.completed": {
      // A run resumed without streaming sends its answer only here.
      const answered = items.at(-1)?.kind === "assistant";
      const text = event.data.output.text;
      return {
        ...next,
        status: "completed",
        pending: [],
        items: answered || !text ? items : [...items, { kind: "assistant", text }],
      };
    }
    case "run.failed":
      return {
        ...next,
        status: "failed",
        pending: [],
        items: [...items, { kind: "failure", code: event.data.error.code, message: event.data.error.message }],
      };
  }
}

export function tryReducer(state: TryState, action: TryAction): TryState {
  switch (action.type) {
    case "send":
      return {
        ...initialTryState,
        status: "streaming",
        // The conversation so far goes with the new run; tool steps and failures stay on screen only.
        items: [...state.items, { kind: "user", text: action.text }],
      };
    case "event":
      return withEvent(state, action.event);
    case "status":
      return { ...state, status: action.status };
    case "restore":
      return action.state;
    case "reset":
      return initialTryState;
  }
}

/** The conversation a new run starts from: the user's and the model's messages, in order. */
export function conversationOf(items: TryItem[]): Array<{ role: "user" | "assistant"; content: string }> {
  return items.flatMap((item) =>
    (item.kind === "user" || item.kind === "assistant") && item.text.trim()
      ? [{ role: item.kind, content: item.text }]
      : [],
  );
}

/** Still moving: the panel keeps following the run's events. */
export function isLive(status: TryStatus): boolean {
  return status === "streaming" || status === "resuming" || status === "requires_approval";
}
