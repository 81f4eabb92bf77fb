import { getAllMcpTools, MCPServerStreamableHttp, RunContext, type FunctionTool } from "@openai/agents";
import { describe, expect, it } from "vitest";

import { crmSuite } from "./proposals-helpers";
import {
  approveCard,
  expectOneAddressChange,
  mcpUrl,
  PREVIEW_ARGS,
  sdkClient,
  sessionRunOf,
} from "./mcp-server-helpers";

// A model behind `@openai/agents` sees a tool's text block and nothing else
// (no structuredContent unless the integrator opts in). The journey here reads
// only that text, and does exactly what it says: a preview's proposal is
// committed by another tool, so the text must name it.

const setup = crmSuite();

/** What the framework hands the model for one call: a single text item. */
async function modelSees(tool: FunctionTool, args: Record<string, unknown>): Promise<string> {
  const output = (await tool.invoke(new RunContext(), JSON.stringify(args))) as unknown;
  expect(output).toMatchObject({ type: "text" });
  return (output as { text: string }).text;
}

describe("a client that reads the text block only", () => {
  it("is told the exact commit tool and arguments by the preview, and committing with them succeeds", async () => {
    const server = new MCPServerStreamableHttp({
      url: mcpUrl(setup.agentId, "read_write"),
      name: "guichet",
      requestInit: { headers: { authorization: `Bearer ${setup.tenant.key}` } },
    });
    await server.connect();
    try {
      const tools = new Map((await getAllMcpTools([server])).map((tool) => [tool.name, tool as FunctionTool] as const));
      const preview = tools.get(setup.crm.key("preview_address_change")) as FunctionTool;
      const text = await modelSees(preview, PREVIEW_ARGS);
      const said = /call the tool (\S+) with exactly (\{[^}]*\})/.exec(text);
      expect(said, text).not.toBeNull();
      const [, toolName, argsText] = said as RegExpExecArray;
      expect(toolName).toBe(setup.crm.key("commit_address_change"));
      const args = JSON.parse(argsText) as { proposal_id: string };
      expect(args).toEqual({ proposal_id: expect.stringMatching(/^prop_[0-9a-z]{26}$/) });
      expect(text).toContain(args.proposal_id);

      await approveCard(setup, args.proposal_id);
      const committed = await modelSees(tools.get(toolName) as FunctionTool, args);
      expect(committed).toMatch(/^Result of /);
      expect(committed).toContain('"new_version":18');
      await expectOneAddressChange(setup, (await sessionRunOf(setup.agentId)).id, args.proposal_id);
    } finally {
      await server.close();
    }
  });

  it("names the commit tool of each preview in initialize's instructions and in the preview's description", async () => {
    const { client } = await sdkClient(setup.agentId, setup.tenant.key, "read_write");
    try {
      const preview = setup.crm.key("preview_address_change");
      const commit = setup.crm.key("commit_address_change");
      expect(client.getInstructions()).toContain(
        `${preview}: once its proposal is approved, call ${commit} with only {"proposal_id"}`,
      );
      const { tools } = await client.listTools();
      const described = tools.find((tool) => tool.name === preview);
      expect(described?.description).toContain(`then call ${commit} with only {"proposal_id"}`);
      const commitDescribed = tools.find((tool) => tool.name === commit);
      expect(commitDescribed?.description).toContain(`call ${preview} first`);
    } finally {
      await client.close();
    }
  });
});
