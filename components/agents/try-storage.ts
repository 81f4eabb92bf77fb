import { initialTryState, type TryState } from "./try-state";

// « Connecter » in « Essayer » leaves the console for the connector's sign-in;
// the conversation waits in this tab's sessionStorage and the panel takes it
// back when the member returns to the agent (`/agents?agent=…`).

const KEPT_FOR_MS = 30 * 60_000;
const keyOf = (agentId: string) => `guichet.try.${agentId}`;

export function keepConversation(agentId: string, state: TryState): void {
  try {
    sessionStorage.setItem(keyOf(agentId), JSON.stringify({ at: Date.now(), state }));
  } catch {
    // Storage full or refused: the member comes back to a new conversation.
  }
}

function read(agentId: string): TryState | null {
  try {
    const kept = JSON.parse(sessionStorage.getItem(keyOf(agentId)) ?? "null") as { at?: number; state?: TryState };
    if (!kept?.state || typeof kept.at !== "number" || Date.now() - kept.at > KEPT_FOR_MS) return null;
    return { ...initialTryState, ...kept.state };
  } catch {
    return null;
  }
}

export function hasKeptConversation(agentId: string): boolean {
  return typeof window !== "undefined" && read(agentId) !== null;
}

/** The conversation kept for this agent, once: taking it forgets it. */
export function takeConversation(agentId: string): TryState | null {
  const state = read(agentId);
  try {
    sessionStorage.removeItem(keyOf(agentId));
  } catch {
    // nothing kept
  }
  return state;
}
