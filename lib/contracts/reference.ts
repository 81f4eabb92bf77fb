import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startAcmeCrm } from "@/connectors/acme-crm/server";
import { suggestedWritesData } from "@/lib/mcp/fingerprint";
import { listRemoteTools } from "@/lib/mcp/remote";
import { deriveMcpContract, type ReviewedMcpTool } from "./mcp";
import type { Contract } from "./types";

// The contracts the reference connector's tools get today, for the tests that
// hold the catalog to what the code publishes (the contracts lock, the
// regression suite of committed traces): a CRM Acme of its own is started on a
// free port, its tools are listed over MCP and reviewed as the demo seed
// reviews them (writes_data from their annotations, which are right for this
// server), and each becomes version 1 of server 0 (`mcp_0_<tool>`).

export async function referenceContracts(): Promise<Contract[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "guichet-reference-"));
  const crm = await startAcmeCrm({ port: 0, dbPath: path.join(dir, "crm.sqlite") });
  try {
    const remote = await listRemoteTools(
      { url: crm.url, token: null },
      { policy: { privateOrigins: [new URL(crm.url).origin] } },
    );
    const reviewed: ReviewedMcpTool[] = remote.map((t) => ({
      name: t.name,
      description: t.description ?? "",
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema ?? null,
      writesData: suggestedWritesData(t.annotations),
    }));
    return reviewed.map((t) => ({ ...deriveMcpContract(0, t, reviewed), version: 1 }));
  } finally {
    await crm.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
