import { spawn } from "node:child_process";
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { connect, key, ok, startTestCrm } from "./test-helpers";

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};
const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });

describe("bearer token", () => {
  it("is required on /mcp when configured", async () => {
    const t = await startTestCrm({ token: "s3cret-token" });
    try {
      expect((await post(t.crm.url, initialize)).status).toBe(401);
      expect((await post(t.crm.url, initialize, { authorization: "Bearer wrong-token" })).status).toBe(401);
      expect((await post(t.crm.url, initialize, { authorization: "s3cret-token" })).status).toBe(401);
      await expect(connect(t.crm.url)).rejects.toThrow();

      const client = await connect(t.crm.url, "s3cret-token");
      expect((await ok(client, "get_customer", { customer_id: "C-1842" })).version).toBe(17);
      await client.close();
    } finally {
      await t.close();
    }
  });
});

describe("HTTP surface", () => {
  it("answers 404 on the control paths when control is disabled", async () => {
    const t = await startTestCrm({ enableControl: false });
    try {
      for (const [method, p] of [
        ["GET", "/__control/state"],
        ["GET", "/__control/faults"],
        ["POST", "/__control/faults"],
        ["POST", "/__control/reset"],
        ["POST", "/__control/customers/C-1842/touch"],
      ]) {
        const res = await fetch(`${t.crm.baseUrl}${p}`, { method, body: method === "POST" ? "{}" : undefined });
        expect(res.status, `${method} ${p}`).toBe(404);
      }
      const client = await connect(t.crm.url);
      expect((await ok(client, "get_customer", { customer_id: "C-1842" })).version).toBe(17);
      await client.close();
    } finally {
      await t.close();
    }
  });

  it("is stateless: GET /mcp is 405, bad JSON is a JSON-RPC parse error, no session id", async () => {
    const t = await startTestCrm();
    try {
      const get = await fetch(t.crm.url, { headers: { accept: "text/event-stream" } });
      expect(get.status).toBe(405);
      const bad = await fetch(t.crm.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{",
      });
      expect(bad.status).toBe(400);
      expect((await bad.json()).error.code).toBe(-32700);
      const init = await post(t.crm.url, initialize);
      expect(init.status).toBe(200);
      expect(init.headers.get("mcp-session-id")).toBeNull();
      expect((await init.json()).result.serverInfo.name).toBe("acme-crm");
    } finally {
      await t.close();
    }
  });
});

describe("DNS rebinding protection", () => {
  it("refuses a non-loopback Host header when bound to loopback", async () => {
    const t = await startTestCrm();
    try {
      const status = (host: string) =>
        new Promise<number>((resolve, reject) => {
          const req = http.request(`${t.crm.baseUrl}/healthz`, { headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on("error", reject);
          req.end();
        });
      const port = new URL(t.crm.baseUrl).port;
      expect(await status(`evil.example:${port}`)).toBe(403);
      expect(await status(`localhost:${port}`)).toBe(200);
      expect(await status(`127.0.0.1:${port}`)).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe("store", () => {
  it("keeps its data across restarts (the seed is idempotent)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "acme-crm-restart-"));
    const dbPath = path.join(dir, "nested", "crm.sqlite");
    try {
      const first = await startTestCrm({ dbPath });
      const client = await connect(first.crm.url);
      const k = key("restart");
      await ok(client, "commit_address_change", {
        customer_id: "C-1842",
        destination: { kind: "saved", address_id: "ADDR-2" },
        expected_version: 17,
        idempotency_key: k,
      });
      await client.close();
      await first.close();

      const second = await startTestCrm({ dbPath });
      const again = await connect(second.crm.url);
      expect((await ok(again, "get_customer", { customer_id: "C-1842" })).version).toBe(18);
      expect((await ok(again, "get_operation_status", { idempotency_key: k })).status).toBe("succeeded");
      await again.close();
      await second.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("CLI (main.ts)", () => {
  it("prints its URL, serves, and stops cleanly on SIGTERM", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "acme-crm-cli-"));
    const tsx = path.resolve(__dirname, "../../node_modules/.bin/tsx");
    const child = spawn(tsx, [path.join(__dirname, "main.ts")], {
      env: { ...process.env, CRM_PORT: "0", CRM_DB: path.join(dir, "db", "crm.sqlite"), CRM_ENABLE_CONTROL: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let out = "";
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (chunk) => {
          out += chunk;
          const m = /^CRM Acme MCP server on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(out);
          if (m) resolve(m[1]);
        });
        child.once("exit", (code) => reject(new Error(`exited with ${code} before listening: ${out}`)));
      });
      const client = await connect(url);
      expect((await ok(client, "get_customer", { customer_id: "C-1842" })).name).toBe("Camille Martin");
      await client.close();
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const [code] = await exited;
      expect(code).toBe(0);
      expect(fs.existsSync(path.join(dir, "db", "crm.sqlite"))).toBe(true);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
