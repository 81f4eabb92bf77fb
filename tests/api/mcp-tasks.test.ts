import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ErrorCode,
  McpError,
  RELATED_TASK_META_KEY,
  type ClientCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "./dispatch-fixtures";
import { crmFaults, testDb } from "./helpers";
import { approveCard, expectOneAddressChange, mcpUrl, PREVIEW_ARGS, sessionRunOf } from "./mcp-server-helpers";
import { grantOverHttp } from "./oauth-helpers";
import { approve, crmCustomer, crmOperationsOf, crmSuite, getProposal, refuse } from "./proposals-helpers";

// MCP tasks (2025-11-25) for writes that wait for approval: a client that
// declares task support and calls a proposing tool with `task` gets a task
// (input_required while people decide), and the door commits the approved
// write itself: tasks/result is the commit's answer. A refused or withdrawn
// proposal never commits. Dana signs in by OAuth, as a desktop client would;
// the organization's API key is another principal.

const setup = crmSuite();
let token: string;

beforeAll(async () => {
  token = (await grantOverHttp(setup.agentId, setup.tenant.emails.developer)).tokens.access_token;
});

const TASK_CLIENT: ClientCapabilities = { tasks: { list: {}, cancel: {}, requests: {} } };

async function connect(bearer: string, capabilities: ClientCapabilities = TASK_CLIENT, agentId = setup.agentId) {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl(agentId, "read_write")), {
    requestInit: { headers: { authorization: `Bearer ${bearer}` } },
  });
  const client = new Client({ name: "tasks-client", version: "0.1.0" }, { capabilities });
  await client.connect(transport);
  return client;
}

/** The preview of C-1842's address change, asked as a task. */
async function previewAsTask(client: Client) {
  const created = await client.request(
    {
      method: "tools/call",
      params: { name: setup.crm.key("preview_address_change"), arguments: PREVIEW_ARGS, task: { ttl: 60_000 } },
    },
    CreateTaskResultSchema,
  );
  return created;
}

async function refusedWith(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe("MCP tasks for writes that wait for approval", () => {
  it("answers a task input_required, blocks tasks/result until approval, then gives the commit's evidence", async () => {
    const client = await connect(token);
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const tools = (await client.listTools()).tools;
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    // Only a tool that makes proposals may be a task: its commit and the reads keep the default (forbidden).
    expect(byName.get(setup.crm.key("preview_address_change"))?.execution).toEqual({ taskSupport: "optional" });
    expect(byName.get(setup.crm.key("commit_address_change"))?.execution).toBeUndefined();
    expect(byName.get(setup.crm.key("get_customer"))?.execution).toBeUndefined();

    const created = await previewAsTask(client);
    const { task } = created;
    expect(task.taskId).toMatch(/^prop_/);
    expect(task.status).toBe("input_required");
    expect(task.statusMessage).toContain(`/approbations/${task.taskId}`);
    expect(task.ttl).toBeGreaterThan(60_000);
    expect(created._meta?.["io.modelcontextprotocol/model-immediate-response"]).toContain("Nothing was changed yet");
    const run = await sessionRunOf(setup.agentId);
    // The task is the proposal, stored where every instance reads it.
    const db = await testDb();
    expect(await db.proposal.findUniqueOrThrow({ where: { id: task.taskId } })).toMatchObject({
      runId: run.id,
      status: "pending",
    });

    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: "input_required" });
    expect((await client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(task.taskId);

    // tasks/result blocks while people decide; the approval releases it with the commit's answer.
    let settled = false;
    const waiting = client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema).finally(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(settled).toBe(false);
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 17 });
    await approveCard(setup, task.taskId);
    const result = await waiting;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      result: { customer_id: "C-1842", previous_version: 17, new_version: 18 },
      evidence: { proposal_id: task.taskId, effect: "write" },
    });
    expect(result._meta?.[RELATED_TASK_META_KEY]).toEqual({ taskId: task.taskId });
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: "completed" });

    // Asking again replays the same commit: CRM Acme still counts exactly one.
    const again = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(again.structuredContent).toMatchObject({ evidence: { proposal_id: task.taskId, replayed: true } });
    await expectOneAddressChange(setup, run.id, task.taskId);
    // After the commit, cancelling cannot undo it, and says so.
    const late = await refusedWith(client.experimental.tasks.cancelTask(task.taskId));
    expect(late.code).toBe(ErrorCode.InvalidParams);
    expect(late.message).toContain("cannot be undone");
    await client.close();
  });

  it("commits for a client that only polls: working while CRM Acme is slow, then completed, one commit", async () => {
    const client = await connect(token);
    const { task } = await previewAsTask(client);
    await approveCard(setup, task.taskId);
    await crmFaults({ slow_ms: 1500 });
    // The first poll after the approval starts the commit; the polls during it read "working" and start no other.
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: "working" });
    const seen: string[] = [];
    for (let i = 0; i < 40; i++) {
      const polled = await client.experimental.tasks.getTask(task.taskId);
      seen.push(polled.status);
      if (polled.status === "completed") break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(seen).toContain("working");
    expect(seen.at(-1)).toBe("completed");
    await crmFaults({ slow_ms: 0 });
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({ result: { new_version: 18 }, evidence: { replayed: true } });
    await expectOneAddressChange(setup, (await sessionRunOf(setup.agentId)).id, task.taskId);
    await client.close();
  });

  it("fails a refused task with the typed refusal, and nothing is committed", async () => {
    const client = await connect(token);
    const { task } = await previewAsTask(client);
    const refused = await refuse(setup.tenant, task.taskId, "approver", "Adresse non confirmée par le client");
    expect(refused.status).toBe(200);
    const failed = await client.experimental.tasks.getTask(task.taskId);
    expect(failed.status).toBe("failed");
    expect(failed.statusMessage).toContain("Adresse non confirmée par le client");
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: "PROPOSAL_NOT_APPROVED" } });
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 17 });
    expect(await crmOperationsOf((await sessionRunOf(setup.agentId)).id)).toHaveLength(0);
    await client.close();
  });

  it("withdraws a pending proposal on tasks/cancel: nobody can approve it afterwards, nothing commits", async () => {
    const client = await connect(token);
    const { task } = await previewAsTask(client);
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: "cancelled" });
    expect((await getProposal(setup.tenant, task.taskId)).status).toBe("withdrawn");
    // The audit trail names the requester: Dana, through her OAuth client's session.
    const run = await sessionRunOf(setup.agentId);
    const db = await testDb();
    expect(
      await db.auditEvent.findMany({ where: { action: "proposal.withdrawn", targetId: task.taskId } }),
    ).toMatchObject([{ actorType: "member", actorId: run.memberId, organizationId: run.organizationId }]);
    const approval = await approve(setup.tenant, task.taskId, "approver");
    expect(approval.status).toBe(409);
    expect(approval.body.error.code).toBe("proposal_not_pending");
    expect((await getProposal(setup.tenant, task.taskId)).status).toBe("withdrawn");
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: "PROPOSAL_NOT_APPROVED" } });
    // A second cancel finds the task over.
    const again = await refusedWith(client.experimental.tasks.cancelTask(task.taskId));
    expect(again.code).toBe(ErrorCode.InvalidParams);
    expect(again.message).toContain("already cancelled");
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 17 });
    // The same change may be proposed again: the withdrawn card no longer holds it.
    const fresh = await previewAsTask(client);
    expect(fresh.task.taskId).not.toBe(task.taskId);
    await client.close();
  });

  it("answers another principal's or another agent's task id as not found", async () => {
    const dana = await connect(token);
    const { task } = await previewAsTask(dana);
    const keyClient = await connect(setup.tenant.key);
    const otherAgent = await createAgent(setup.tenant, { tools: [setup.crm.key("get_customer")] });
    const elsewhere = await connect(setup.tenant.key, TASK_CLIENT, otherAgent.id);
    for (const client of [keyClient, elsewhere]) {
      for (const ask of [
        () => client.experimental.tasks.getTask(task.taskId),
        () => client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema),
        () => client.experimental.tasks.cancelTask(task.taskId),
      ]) {
        const error = await refusedWith(ask());
        expect(error.code).toBe(ErrorCode.InvalidParams);
        expect(error.message).toContain("Task not found");
      }
      expect((await client.experimental.tasks.listTasks()).tasks).toEqual([]);
    }
    // Nothing the strangers asked changed Dana's task.
    expect((await getProposal(setup.tenant, task.taskId)).status).toBe("pending");
    expect(await dana.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: "input_required" });
    for (const client of [dana, keyClient, elsewhere]) await client.close();
  });

  it("keeps today's answer with approval_url for a client without task support", async () => {
    const client = await connect(token, {});
    const answer = await client.callTool({ name: setup.crm.key("preview_address_change"), arguments: PREVIEW_ARGS });
    expect(answer.isError).toBeFalsy();
    expect(answer).not.toHaveProperty("task");
    const card = (answer.structuredContent as { proposal: { id: string; status: string; approval_url: string } })
      .proposal;
    expect(card.status).toBe("pending");
    expect(card.approval_url.endsWith(`/approbations/${card.id}`)).toBe(true);
    expect((answer.content as Array<{ text: string }>)[0].text).toContain(`Approve at ${card.approval_url}`);
    await client.close();
  });

  it("refuses a task for a tool that makes no proposal", async () => {
    const client = await connect(token);
    const error = await refusedWith(
      client.request(
        {
          method: "tools/call",
          params: { name: setup.crm.key("get_customer"), arguments: { customer_id: "C-1842" }, task: {} },
        },
        CreateTaskResultSchema,
      ),
    );
    expect(error.code).toBe(ErrorCode.MethodNotFound);
    await client.close();
  });
});
