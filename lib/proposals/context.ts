import "server-only";
import { db } from "@/lib/db";
import type { RequesterObject } from "./schemas";
import type { ProposalRow } from "./service";
import { effectiveStatus } from "./state";

// What a page of proposals needs besides its own rows, read in a few queries
// for the whole page: the names of the people it mentions, who asked (agent,
// run, how the run was started) and which live proposals went stale.

export interface ProposalContext {
  names: Map<string, string>;
  requesters: Map<string, RequesterObject>;
  /** Ids of live proposals whose target has changed since their version. */
  stale: Set<string>;
  /** By proposal id: the member whose own connector credential commits it (a connector that acts as each member). */
  actsAs: Map<string, { member_id: string; email: string | null }>;
}

export async function proposalContext(
  organizationId: string,
  rows: ProposalRow[],
  now = new Date(),
): Promise<ProposalContext> {
  const runs = await db.run.findMany({
    where: { organizationId, id: { in: [...new Set(rows.map((row) => row.runId))] } },
    select: {
      id: true,
      apiKeyId: true,
      memberId: true,
      source: true,
      clientName: true,
      clientVersion: true,
      widgetId: true,
      agent: { select: { id: true, name: true } },
    },
  });
  const widgets = await widgetRequesters(
    organizationId,
    runs.flatMap((run) => (run.widgetId ? [run.id] : [])),
  );
  const keyIds = [...new Set(runs.flatMap((run) => (run.apiKeyId ? [run.apiKeyId] : [])))];
  const memberIds = new Set(
    rows.flatMap((row) => [
      ...(row.requestedBy ? [row.requestedBy] : []),
      ...(row.revisedBy ? [row.revisedBy] : []),
      ...row.decisions.map((d) => d.memberId),
    ]),
  );
  for (const run of runs) if (run.memberId) memberIds.add(run.memberId);
  const serverIds = [
    ...new Set(
      rows.flatMap((row) => {
        const match = /^mcp_([1-9][0-9]{0,8})_/.exec(row.tool);
        return match ? [Number(match[1])] : [];
      }),
    ),
  ];
  const [keys, members, stale, perMemberServers] = await Promise.all([
    keyIds.length
      ? db.apiKey.findMany({ where: { organizationId, id: { in: keyIds } }, select: { id: true, name: true } })
      : [],
    memberIds.size
      ? db.member.findMany({
          where: { organizationId, id: { in: [...memberIds] } },
          select: { id: true, name: true, email: true },
        })
      : [],
    staleProposals(organizationId, rows, now),
    serverIds.length
      ? db.mcpServer.findMany({
          where: { organizationId, id: { in: serverIds }, auth: { in: ["per_user_token", "oauth"] } },
          select: { id: true },
        })
      : [],
  ]);
  const emails = new Map(members.map((m) => [m.id, m.email]));
  const perMember = new Set(perMemberServers.map((server) => server.id));
  const runMembers = new Map(runs.map((run) => [run.id, run.memberId]));
  const actsAs = new Map<string, { member_id: string; email: string | null }>();
  for (const row of rows) {
    const match = /^mcp_([1-9][0-9]{0,8})_/.exec(row.tool);
    const memberId = runMembers.get(row.runId);
    if (match && memberId && perMember.has(Number(match[1])))
      actsAs.set(row.id, { member_id: memberId, email: emails.get(memberId) ?? null });
  }
  const names = new Map(members.map((m) => [m.id, m.name]));
  const keyNames = new Map(keys.map((k) => [k.id, k.name]));
  const requesters = new Map<string, RequesterObject>(
    runs.map((run) => [
      run.id,
      {
        agent: run.agent,
        run: run.id,
        source: run.widgetId ? "widget" : run.source === "mcp" ? "mcp" : run.apiKeyId ? "api_key" : "console",
        api_key: run.apiKeyId ? { id: run.apiKeyId, name: keyNames.get(run.apiKeyId) ?? null } : null,
        member: run.memberId ? { id: run.memberId, name: names.get(run.memberId) ?? null } : null,
        mcp_client:
          run.source === "mcp" && run.clientName ? { name: run.clientName, version: run.clientVersion ?? "" } : null,
        widget: run.widgetId ? (widgets.get(run.id) ?? { id: run.widgetId, name: null, visitor: null }) : null,
      },
    ]),
  );
  return { names, requesters, stale, actsAs };
}

/** The widget and visitor behind each widget run: the visitor message that started it. */
async function widgetRequesters(
  organizationId: string,
  runIds: string[],
): Promise<Map<string, RequesterObject["widget"]>> {
  if (runIds.length === 0) return new Map();
  const messages = await db.widgetMessage.findMany({
    where: { organizationId, runId: { in: runIds } },
    select: {
      runId: true,
      conversation: {
        select: { visitorId: true, visitorName: true, widget: { select: { id: true, name: true } } },
      },
    },
  });
  return new Map(
    messages.map((m) => [
      m.runId!,
      {
        id: m.conversation.widget.id,
        name: m.conversation.widget.name,
        visitor: {
          id: m.conversation.visitorId,
          name: m.conversation.visitorName,
          verified: m.conversation.visitorId.startsWith("user:"),
        },
      },
    ]),
  );
}

/**
 * A live proposal is stale once another proposal for the same target, made at
 * its version or a later one, was committed: the service moved past the
 * version this one expects, so its commit would be refused. Guichet's own
 * record of committed writes answers that without calling the service; a
 * change made outside Guichet is caught at commit, as before.
 */
async function staleProposals(organizationId: string, rows: ProposalRow[], now: Date): Promise<Set<string>> {
  const live = rows.filter(
    (row) =>
      row.targetType &&
      row.targetId &&
      row.targetVersion !== null &&
      ["pending", "approved"].includes(effectiveStatus(row, now)),
  );
  if (live.length === 0) return new Set();
  const targets = [
    ...new Map(
      live.map((row) => [
        `${row.targetType}\u0000${row.targetId}`,
        { targetType: row.targetType!, targetId: row.targetId! },
      ]),
    ).values(),
  ];
  // Only commits after the oldest live proposal was made can move past it: the target's older history is not read.
  const since = new Date(Math.min(...live.map((row) => row.createdAt.getTime())));
  const committed = await db.proposal.findMany({
    where: { organizationId, status: "consumed", consumedAt: { gt: since }, OR: targets },
    select: { id: true, targetType: true, targetId: true, targetVersion: true, consumedAt: true },
  });
  const movedPast = (row: ProposalRow, c: (typeof committed)[number]) =>
    c.id !== row.id &&
    c.targetType === row.targetType &&
    c.targetId === row.targetId &&
    c.targetVersion !== null &&
    c.targetVersion >= row.targetVersion! &&
    // Committed after this one was made: versions only grow, so an earlier commit at this version means the service's record was reset.
    c.consumedAt !== null &&
    c.consumedAt > row.createdAt;
  return new Set(live.filter((row) => committed.some((c) => movedPast(row, c))).map((row) => row.id));
}
