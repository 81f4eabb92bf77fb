import { expect } from "vitest";
import { api, type Caller } from "./helpers";

export interface AuditEvent {
  id: string;
  action: string;
  actor: { type: string; id: string | null; label: string | null };
  target: { type: string; id: string } | null;
  details: Record<string, unknown>;
  created_at: string;
}

/** One page of GET /v1/audit_events as `caller`, asserting it answered 200. */
export async function auditPage(caller: Caller, query: Record<string, string> = {}) {
  const response = await api<{ data: AuditEvent[]; next_cursor: string | null }>(
    `/v1/audit_events?${new URLSearchParams(query)}`,
    { as: caller },
  );
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/** The one event of `action` on `targetId`, as `caller` (an owner or admin) reads it through the API. */
export async function auditEventFor(caller: Caller, action: string, targetId: string): Promise<AuditEvent> {
  const { data } = await auditPage(caller, { action, target: targetId, limit: "100" });
  expect(data.map((event) => event.action)).toEqual([action]);
  return data[0];
}
