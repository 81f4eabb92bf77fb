import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl, testDb } from "./helpers";
import { closeBrowser, consentInChromium, grantsOf } from "./oauth-helpers";
import { crmSuite } from "./proposals-helpers";
import { freePort } from "./server";

// mcp-remote, the stdio-to-HTTP proxy desktop clients (Claude Desktop, Cursor…)
// run for OAuth servers, against Guichet's door: it is a child process speaking
// MCP on its stdio, with its own loopback callback. Its "browser" is a command
// of ours (BROWSER, which the opener it bundles honours when there is no
// desktop) that writes down the authorization URL; Chromium then signs Dana in
// and consents, and tools/list goes through the proxy's stdio.

const setup = crmSuite();
let work: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "guichet-mcp-remote-"));
});
afterAll(async () => {
  await closeBrowser();
  await rm(work, { recursive: true, force: true });
});

/** Waits until the fake browser has been handed a URL. */
async function authorizationUrlFrom(file: string, stderr: () => string): Promise<URL> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const written = await readFile(file, "utf8").catch(() => "");
    if (written.trim()) return new URL(written.trim());
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`mcp-remote opened no browser; its output:\n${stderr()}`);
}

describe("mcp-remote", () => {
  it("registers, has Dana sign in and consent in Chromium, and lists the tools through its stdio", async () => {
    const urlFile = path.join(work, "authorization-url");
    const browser = path.join(work, "browser.sh");
    await writeFile(browser, `#!/bin/sh\nprintf '%s' "$1" > "${urlFile}"\n`);
    await chmod(browser, 0o755);
    const callbackPort = await freePort();
    // The URL the README's configuration gives: the agent's door asking for writes.
    const door = `${baseUrl}/mcp/agents/${setup.agentId}`;
    const configured = `${door}?capabilities=read_write`;

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["node_modules/mcp-remote/dist/proxy.js", configured, String(callbackPort), "--host", "127.0.0.1"],
      // No desktop: the bundled xdg-open falls back to $BROWSER. Its tokens and client go to a folder of ours.
      env: {
        PATH: process.env.PATH ?? "",
        HOME: work,
        BROWSER: browser,
        MCP_REMOTE_CONFIG_DIR: path.join(work, "mcp-auth"),
      },
      stderr: "pipe",
    });
    let output = "";
    transport.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const client = new Client({ name: "claude-desktop", version: "0.1.0" });
    const connecting = client.connect(transport);
    try {
      const authorization = await authorizationUrlFrom(urlFile, () => output);
      // mcp-remote asked as the protocol says: PKCE S256, the agent's URL as resource, its loopback callback.
      expect(authorization.origin + authorization.pathname).toBe(`${baseUrl}/oauth/authorize`);
      expect(authorization.searchParams.get("code_challenge_method")).toBe("S256");
      expect(authorization.searchParams.get("resource")).toBe(door);
      expect(authorization.searchParams.get("scope")).toBe("mcp:read_write");
      expect(authorization.searchParams.get("redirect_uri")).toBe(`http://127.0.0.1:${callbackPort}/oauth/callback`);
      await consentInChromium(authorization, setup.tenant.emails.developer, "Autoriser");
      await connecting;

      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain(setup.crm.key("get_customer"));
      const read = await client.callTool({ name: setup.crm.key("get_customer"), arguments: { customer_id: "C-1842" } });
      expect(read.isError).toBeFalsy();
    } catch (error) {
      throw new Error(`${(error as Error).message}\nmcp-remote said:\n${output}`, { cause: error });
    } finally {
      await client.close();
    }

    // One grant for Dana at this agent, to a client mcp-remote registered itself.
    const db = await testDb();
    const dana = await db.member.findUniqueOrThrow({ where: { email: setup.tenant.emails.developer } });
    const grants = await grantsOf(setup.tenant.organizationId);
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({ memberId: dana.id, agentId: setup.agentId, scope: "mcp:read_write" });
    const oauthClient = await db.oAuthClient.findUniqueOrThrow({ where: { id: grants[0].clientId } });
    expect(oauthClient).toMatchObject({ kind: "registered" });
    expect(oauthClient.name).toMatch(/mcp/i);
  });
});
