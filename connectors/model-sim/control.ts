import type { ScriptBody } from "./script";

// The control API from a test's side: create a script, read what it received.

export interface ScriptHandle {
  id: string;
  /** Put this text in a message (instructions or input) to select the script. */
  marker: string;
}

export async function createScript(
  simBaseUrl: string,
  body: { turns: ScriptBody["turns"]; replay?: ScriptBody["replay"] },
): Promise<ScriptHandle> {
  const response = await fetch(`${simBaseUrl}/__control/scripts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (response.status !== 201)
    throw new Error(`model-sim refused the script: ${response.status} ${await response.text()}`);
  return (await response.json()) as ScriptHandle;
}

export interface ScriptRecord {
  id: string;
  served: number;
  /** The chat-completion requests the script answered, in order, as received. */
  requests: Array<{
    model: string;
    messages: Array<{ role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }>;
    tools?: Array<{ function: { name: string; description?: string; parameters?: unknown } }>;
    response_format?: unknown;
    stream?: boolean | null;
  }>;
}

export async function scriptRecord(simBaseUrl: string, id: string): Promise<ScriptRecord> {
  const response = await fetch(`${simBaseUrl}/__control/scripts/${id}`);
  if (!response.ok) throw new Error(`model-sim has no script ${id}: ${response.status}`);
  return (await response.json()) as ScriptRecord;
}
