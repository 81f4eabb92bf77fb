import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { samplePdf } from "@/tests/support/pdf";
import { startTestServer, type TestServer } from "@/tests/support/http-server";
import { callTool, createAgent, createRun, seedDataBases, upload } from "./dispatch-fixtures";
import { api, baseUrl, createTenant, crmState, crmUrl, testDb, type Tenant } from "./helpers";
import { publicTestOrigin } from "./server";

// Each built-in tool for real, through the dispatcher: native tools against a
// real local HTTP peer, file tools over uploaded files and documents, data
// tools over the organization's data bases.

let acme: Tenant;
let other: Tenant;
let web: TestServer;
/** The page server under a public-looking .test name: web_fetch only reaches public addresses. */
let site: string;
let run: string;
let hangs = 0;

beforeAll(async () => {
  acme = await createTenant("pro");
  other = await createTenant("pro");
  web = await startTestServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/article")
      return res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          "<html><head><title>Guichet</title><script>steal()</script></head><body><h1>Frontière</h1><p>Les outils typés.</p></body></html>",
        );
    if (url.pathname === "/big") return res.writeHead(200, { "content-type": "text/plain" }).end("é".repeat(60_000));
    if (url.pathname === "/hang") {
      hangs++;
      return; // never answers
    }
    if (url.pathname === "/to-article") return res.writeHead(302, { location: "/article" }).end();
    if (url.pathname === "/to-metadata")
      return res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
    if (url.pathname === "/to-private") return res.writeHead(301, { location: "http://10.1.2.3/admin" }).end();
    if (url.pathname === "/to-loopback") return res.writeHead(302, { location: `${web.origin}/article` }).end();
    if (url.pathname === "/to-guichet") return res.writeHead(307, { location: `${baseUrl}/api/health` }).end();
    if (url.pathname === "/binary")
      return res.writeHead(200, { "content-type": "application/octet-stream" }).end(Buffer.from([0, 1, 2]));
    res.writeHead(404).end();
  });
  site = publicTestOrigin(web.origin);
  const agent = await createAgent(acme, { tools: ["create_chart"] });
  run = (await createRun(acme, { agent: agent.id })).run.id;
});

afterAll(async () => web?.close());

describe("calculate", () => {
  it("evaluates arithmetic with a parser and answers the envelope with evidence", async () => {
    const envelope = await callTool(acme, run, "calculate", { expression: "round((1250 * 1.2) / 7, 2) + 2 ^ 10" });
    expect(envelope).toEqual({
      ok: true,
      result: { expression: "round((1250 * 1.2) / 7, 2) + 2 ^ 10", result: 1238.29 },
      evidence: {
        run,
        step: expect.stringMatching(/^step_/),
        tool: "calculate@1",
        effect: "read",
        duration_ms: expect.any(Number),
        arguments_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        retries: 0,
        untrusted: true,
      },
    });
  });

  it("reports a division by zero or a syntax error as INVALID_ARGUMENTS at /expression", async () => {
    expect((await callTool(acme, run, "calculate", { expression: "1 / 0" })).error).toMatchObject({
      code: "INVALID_ARGUMENTS",
      field: "/expression",
    });
    expect((await callTool(acme, run, "calculate", { expression: "(1 + 2" })).error).toMatchObject({
      code: "INVALID_ARGUMENTS",
      field: "/expression",
    });
  });
});

describe("create_chart", () => {
  it.each(["bar", "line", "area", "pie"])("returns a %s chart as data", async (type) => {
    const envelope = await callTool(acme, run, "create_chart", {
      type,
      title: "Ventes 2026",
      series: [
        {
          name: "CA",
          points: [
            { x: "jan", y: 12 },
            { x: "fév", y: 15 },
          ],
        },
      ],
    });
    expect(envelope.result).toEqual({
      chart: {
        type,
        title: "Ventes 2026",
        x_label: null,
        y_label: null,
        series: [
          {
            name: "CA",
            points: [
              { x: "jan", y: 12 },
              { x: "fév", y: 15 },
            ],
          },
        ],
      },
      point_count: 2,
    });
  });

  it("refuses a pie with two series or a negative slice", async () => {
    const two = await callTool(acme, run, "create_chart", {
      type: "pie",
      title: "T",
      series: [
        { name: "a", points: [{ x: 1, y: 1 }] },
        { name: "b", points: [{ x: 1, y: 1 }] },
      ],
    });
    expect(two.error).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/series" });
    const negative = await callTool(acme, run, "create_chart", {
      type: "pie",
      title: "T",
      series: [{ name: "a", points: [{ x: 1, y: -1 }] }],
    });
    expect(negative.error).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/series/0/points/0/y" });
  });
});

describe("web_fetch", () => {
  it("fetches a page as text, never as HTML, marked untrusted", async () => {
    const envelope = await callTool(acme, run, "web_fetch", { url: `${site}/to-article` });
    expect(envelope.result).toMatchObject({
      url: `${site}/to-article`,
      final_url: `${site}/article`,
      status: 200,
      content_type: "text/html",
      title: "Guichet",
      truncated: false,
      untrusted: true,
    });
    expect(envelope.result.text).toContain("Les outils typés.");
    expect(envelope.result.text).not.toMatch(/<|steal/);
  });

  it("caps the text it returns", async () => {
    const envelope = await callTool(acme, run, "web_fetch", { url: `${site}/big`, max_chars: 100 });
    expect(envelope.result.text).toHaveLength(100);
    expect(envelope.result.truncated).toBe(true);
  });

  it("refuses Guichet itself, CRM Acme and any loopback page, even though CRM Acme's origin is allowlisted for admins", async () => {
    const crmBefore = JSON.stringify(await crmState());
    const healthUrl = `${baseUrl}/api/health`;
    expect(new URL(healthUrl).hostname).toBe("127.0.0.1");
    for (const url of [
      healthUrl,
      `${crmUrl}`,
      `${web.origin}/article`,
      `${site}/to-loopback`,
      `${site}/to-guichet`,
      healthUrl.replace("127.0.0.1", "localhost"),
    ]) {
      const envelope = await callTool(acme, run, "web_fetch", { url });
      expect(envelope.error, url).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/url", retryable: false });
      expect(envelope.error.message, url).toMatch(/loopback/);
    }
    expect(JSON.stringify(await crmState())).toBe(crmBefore);
  });

  it("refuses the metadata address and private ranges, directly or through a redirect", async () => {
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://10.0.0.1/",
      "http://192.168.1.1/",
      `${site}/to-metadata`,
      `${site}/to-private`,
    ]) {
      const envelope = await callTool(acme, run, "web_fetch", { url });
      expect(envelope.error, url).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/url", retryable: false });
    }
  });

  it("answers UPSTREAM_ERROR for content it does not read, and TIMEOUT within the run's deadline", async () => {
    expect((await callTool(acme, run, "web_fetch", { url: `${site}/binary` })).error.code).toBe("UPSTREAM_ERROR");
    const agent = await createAgent(acme);
    const short = (await createRun(acme, { agent: agent.id })).run.id;
    await (await testDb()).run.update({ where: { id: short }, data: { expiresAt: new Date(Date.now() + 1_500) } });
    const started = Date.now();
    const envelope = await callTool(acme, short, "web_fetch", { url: `${site}/hang` });
    expect(envelope.error).toMatchObject({ code: "TIMEOUT", retryable: false });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe("cancellation", () => {
  it("aborts a call in flight when its run is cancelled, and says it stopped it", async () => {
    const agent = await createAgent(acme);
    const { run: running } = await createRun(acme, { agent: agent.id });
    const before = hangs;
    const pending = callTool(acme, running.id, "web_fetch", { url: `${site}/hang` });
    // Cancel once the page server holds the request: the call is then in flight.
    const deadline = Date.now() + 10_000;
    while (hangs === before && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    const cancelled = await api(`/v1/runs/${running.id}/cancel`, { method: "POST", as: { key: acme.key } });
    const stopped = cancelled.body.cancellation.stopped_calls;
    expect(stopped).toBe(1);
    const envelope = await pending;
    expect(envelope).toEqual({
      ok: false,
      error: { code: "CANCELLED", message: "The tool call was cancelled.", retryable: false, field: null },
    });
  });
});

describe("web_search", () => {
  // The suite's servers have a search backend (tests/api/server.ts); without one, see catalog-not-configured.test.ts.
  it("answers the configured backend's results", async () => {
    const envelope = await callTool(acme, run, "web_search", { query: "guichet" });
    expect(envelope.ok, JSON.stringify(envelope.error)).toBe(true);
    expect(envelope.result).toMatchObject({
      results: [
        { title: "Résultat pour guichet", url: "https://example.org/guichet", snippet: "À propos de guichet." },
        { title: "Deux", url: "https://example.org/deux", snippet: "Second." },
      ],
      untrusted: true,
    });
  });
});

describe("file tools", () => {
  let agentId: string;
  let csv: Record<string, any>;
  let notes: Record<string, any>;
  let pdf: Record<string, any>;
  let doc: Record<string, any>;
  let fileRun: string;

  beforeAll(async () => {
    const agent = await createAgent(acme);
    agentId = agent.id;
    doc = await upload(
      acme,
      `/v1/agents/${agentId}/documents`,
      "# FAQ\nLivraison : 48 heures.\nRetours : 30 jours.\n",
      "faq.md",
    );
    csv = await upload(acme, "/v1/files", "sku,nom,prix\nACM-001,Chaise,189\nACM-002,Bureau,449\n", "produits.csv");
    notes = await upload(
      acme,
      "/v1/files",
      Array.from({ length: 40 }, (_, i) => `Ligne ${i + 1} : livraison express possible.`).join("\n"),
      "notes.txt",
    );
    pdf = await upload(acme, "/v1/files", samplePdf([["Facture Acme 2026", "Total : 1 250 EUR"]]), "facture.pdf");
    fileRun = (await createRun(acme, { agent: agentId, files: [csv.id, notes.id, pdf.id] })).run.id;
  });

  it("lists the run's files and the agent's documents", async () => {
    const envelope = await callTool(acme, fileRun, "list_uploaded_files");
    expect(envelope.result.untrusted).toBe(true);
    expect(envelope.result.files.map((f: { file_id: string; source: string }) => [f.file_id, f.source]).sort()).toEqual(
      [
        [csv.id, "run"],
        [notes.id, "run"],
        [pdf.id, "run"],
        [doc.id, "agent_document"],
      ].sort(),
    );
  });

  it("inspects a CSV (columns, lines) and a PDF (pages)", async () => {
    expect((await callTool(acme, fileRun, "inspect_file", { file_id: csv.id })).result).toMatchObject({
      file: { filename: "produits.csv", mime_type: "text/csv" },
      columns: ["sku", "nom", "prix"],
      lines: 4,
      pages: null,
    });
    expect((await callTool(acme, fileRun, "inspect_file", { file_id: pdf.id })).result).toMatchObject({
      file: { mime_type: "application/pdf" },
      pages: 1,
    });
  });

  it("reads a file page by page with a cursor, and the text of a PDF", async () => {
    const first = await callTool(acme, fileRun, "read_uploaded_file", { file_id: notes.id, max_chars: 500 });
    expect(first.result.text).toHaveLength(500);
    expect(first.result.offset).toBe(0);
    const second = await callTool(acme, fileRun, "read_uploaded_file", {
      file_id: notes.id,
      max_chars: 20_000,
      cursor: first.result.next_cursor,
    });
    expect(second.result.offset).toBe(500);
    expect(second.result.next_cursor).toBeNull();
    expect(first.result.text + second.result.text).toContain("Ligne 40 : livraison express possible.");
    expect((await callTool(acme, fileRun, "read_uploaded_file", { file_id: pdf.id })).result.text).toBe(
      "Facture Acme 2026\nTotal : 1 250 EUR",
    );
    const foreignCursor = await callTool(acme, fileRun, "read_uploaded_file", {
      file_id: csv.id,
      cursor: first.result.next_cursor,
    });
    expect(foreignCursor.error).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/cursor" });
  });

  it("searches the run's files and documents for a phrase, with line numbers", async () => {
    const envelope = await callTool(acme, fileRun, "search_text", { query: "LIVRAISON", max_results: 3 });
    expect(envelope.result.matches).toHaveLength(3);
    expect(envelope.result.truncated).toBe(true);
    const inDoc = await callTool(acme, fileRun, "search_text", { query: "Retours", file_ids: [doc.id] });
    expect(inDoc.result.matches).toEqual([
      { file_id: doc.id, filename: "faq.md", line: 3, text: "Retours : 30 jours." },
    ]);
  });

  it("cannot reach a file outside the run, even of the same organization, nor another organization's", async () => {
    const stray = await upload(acme, "/v1/files", "secret\n", "stray.txt");
    const theirs = await upload(other, "/v1/files", "theirs\n", "theirs.txt");
    for (const file_id of [stray.id, theirs.id]) {
      expect((await callTool(acme, fileRun, "read_uploaded_file", { file_id })).error).toMatchObject({
        code: "INVALID_ARGUMENTS",
        field: "/file_id",
      });
    }
    expect(
      (await callTool(acme, fileRun, "search_text", { query: "secret", file_ids: [csv.id, stray.id] })).error,
    ).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/file_ids/1" });
  });
});

describe("data tools", () => {
  let dataRun: string;

  beforeAll(async () => {
    await seedDataBases(acme);
    await seedDataBases(other);
    const agent = await createAgent(acme, { tools: ["list_data_bases", "describe_table", "query_table"] });
    dataRun = (await createRun(acme, { agent: agent.id })).run.id;
  });

  it("lists the organization's data bases and tables, a page at a time", async () => {
    const first = await callTool(acme, dataRun, "list_data_bases", { limit: 1 });
    expect(first.result.data_bases).toEqual([
      {
        name: "support",
        description: "Tickets du service client.",
        tables: [{ name: "tickets", row_count: 8, column_count: 6 }],
      },
    ]);
    const second = await callTool(acme, dataRun, "list_data_bases", { limit: 1, cursor: first.result.next_cursor });
    expect(second.result.data_bases[0]).toMatchObject({
      name: "ventes",
      tables: [
        { name: "produits", row_count: 12 },
        { name: "ventes_mensuelles", row_count: 48 },
      ],
    });
    expect(second.result.next_cursor).toBeNull();
  });

  it("describes a table and refuses an unknown base or table at its field", async () => {
    expect(
      (await callTool(acme, dataRun, "describe_table", { data_base: "ventes", table: "produits" })).result,
    ).toMatchObject({ row_count: 12, columns: expect.arrayContaining([{ name: "stock", type: "integer" }]) });
    expect(
      (await callTool(acme, dataRun, "describe_table", { data_base: "paie", table: "salaires" })).error,
    ).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/data_base" });
    expect(
      (await callTool(acme, dataRun, "describe_table", { data_base: "ventes", table: "salaires" })).error,
    ).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/table" });
  });

  it("queries rows with filters and columns, in pages with a cursor", async () => {
    const where = [
      { column: "region", op: "eq", value: "Occitanie" },
      { column: "commandes", op: "gte", value: 150 },
    ];
    const first = await callTool(acme, dataRun, "query_table", {
      data_base: "ventes",
      table: "ventes_mensuelles",
      columns: ["mois", "commandes"],
      where,
      limit: 2,
    });
    expect(first.result.columns).toEqual(["mois", "commandes"]);
    expect(first.result.rows).toHaveLength(2);
    expect(first.result.untrusted).toBe(true);
    const all: { mois: string; commandes: number }[] = [...first.result.rows];
    let cursor = first.result.next_cursor;
    while (cursor) {
      const next = await callTool(acme, dataRun, "query_table", {
        data_base: "ventes",
        table: "ventes_mensuelles",
        columns: ["mois", "commandes"],
        where,
        limit: 2,
        cursor,
      });
      all.push(...next.result.rows);
      cursor = next.result.next_cursor;
    }
    expect(all.length).toBeGreaterThan(2);
    expect(all.every((r) => r.commandes >= 150 && Object.keys(r).length === 2)).toBe(true);
    expect(new Set(all.map((r) => r.mois)).size).toBe(all.length);
  });

  it("refuses a filter of the wrong type or on an unknown column", async () => {
    expect(
      (
        await callTool(acme, dataRun, "query_table", {
          data_base: "ventes",
          table: "produits",
          where: [{ column: "stock", op: "gt", value: "dix" }],
        })
      ).error,
    ).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/where/0/value" });
    expect(
      (
        await callTool(acme, dataRun, "query_table", {
          data_base: "ventes",
          table: "produits",
          where: [{ column: "marge", op: "eq", value: 1 }],
        })
      ).error,
    ).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/where/0/column" });
    expect(
      (
        await callTool(acme, dataRun, "query_table", {
          data_base: "ventes",
          table: "produits",
          columns: ["sku", "cost"],
        })
      ).error,
    ).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/columns/1" });
  });

  it("sees only its own organization's rows", async () => {
    const db = await testDb();
    const table = await db.dataTable.findFirstOrThrow({
      where: { organizationId: other.organizationId, name: "produits" },
    });
    await db.dataRow.create({
      data: {
        tableId: table.id,
        organizationId: other.organizationId,
        position: 99,
        values: { sku: "OTHER-1", nom: "Leur produit", categorie: "X", prix_eur: 1, stock: 1, actif: true },
      },
    });
    const envelope = await callTool(acme, dataRun, "query_table", {
      data_base: "ventes",
      table: "produits",
      where: [{ column: "sku", op: "eq", value: "OTHER-1" }],
    });
    expect(envelope.result.rows).toEqual([]);
  });
});
