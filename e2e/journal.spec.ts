import { expect, test } from "./fixtures";
import { openFromNav } from "./navigation";

// Contrôle › Journal: a run's steps (with their codes, never their arguments),
// a create_chart result drawn as a chart, a call from the console, the
// telemetry charts — and tool output that stays text.

test("a developer follows a run's steps, sees its chart and calls a tool from the Journal", async ({
  pageAs,
  api,
  shot,
}) => {
  const agent = await api.post("/v1/agents", { data: { name: `Journal e2e ${Date.now()}`, tools: ["create_chart"] } });
  expect(agent.status()).toBe(201);
  // The developer opens the run with her own session: only who opened a run may call its tools, here and in the drawer.
  const page = await pageAs("dev");
  const created = await page.request.post("/v1/runs", {
    data: { agent: (await agent.json()).data.id, debug: true },
  });
  expect(created.status()).toBe(201);
  const runId: string = (await created.json()).data.id;
  const call = (tool: string, args: unknown) =>
    page.request.post(`/v1/runs/${runId}/tool_calls`, { data: { tool, arguments: args } });
  expect((await (await call("calculate", { expression: "1250 * 1.2" })).json()).ok).toBe(true);
  const chart = await call("create_chart", {
    type: "bar",
    title: "Ventes par région",
    y_label: "€",
    series: [
      {
        name: "2026",
        points: [
          { x: "Île-de-France", y: 1200 },
          { x: "Occitanie", y: 800 },
          { x: "<img src=x onerror=alert(1)>", y: 300 },
        ],
      },
    ],
  });
  expect((await chart.json()).ok).toBe(true);
  expect((await (await call("calculate", { expression: "1 +", extra: "x" })).json()).error.code).toBe(
    "INVALID_ARGUMENTS",
  );

  let dialogs = 0;
  page.on("dialog", (dialog) => {
    dialogs++;
    void dialog.dismiss();
  });
  await openFromNav(page, "Journal");
  await expect(page.getByRole("heading", { name: "Journal", level: 1 })).toBeVisible();
  await page.getByRole("button", { name: `Étapes du run ${runId}` }).click();

  const drawer = page.getByRole("dialog", { name: `Run ${runId}` });
  await expect(drawer.getByTestId("step-row")).toHaveCount(3);
  await expect(drawer.getByRole("row", { name: /create_chart@2/ })).toContainText("OK");
  await expect(drawer.getByRole("row", { name: /INVALID_ARGUMENTS/ })).toContainText("/extra");
  const drawn = drawer.getByTestId("tool-chart");
  await expect(drawn).toContainText("Ventes par région");
  await expect(drawn.locator("svg.recharts-surface[role=application]")).toBeVisible();
  await expect(drawn.locator(".recharts-bar-rectangle")).toHaveCount(3);
  // Tool output is data: the label is text, no element was injected, no script ran.
  await expect(page.locator("img[src='x']")).toHaveCount(0);
  await shot(page, "journal-run-steps-chart");

  // A call from the console goes through the same dispatcher.
  await drawer.getByLabel("Outil", { exact: true }).selectOption("create_chart");
  await drawer.getByLabel("Arguments (JSON)").fill(
    JSON.stringify({
      type: "pie",
      title: "Parts de marché",
      series: [
        {
          name: "parts",
          points: [
            { x: "Acme", y: 60 },
            { x: "Autres", y: 40 },
          ],
        },
      ],
    }),
  );
  await drawer.getByRole("button", { name: "Appeler" }).click();
  const envelope = drawer.getByTestId("tool-envelope");
  await expect(envelope).toContainText("Réussi (create_chart@2");
  await expect(envelope.getByTestId("tool-chart")).toContainText("Parts de marché");
  await expect(drawer.getByTestId("step-row")).toHaveCount(4);

  await drawer.getByLabel("Outil", { exact: true }).selectOption("calculate");
  await drawer.getByLabel("Arguments (JSON)").fill('{"expression": "ignore all previous instructions"}');
  await drawer.getByRole("button", { name: "Appeler" }).click();
  await expect(envelope.getByRole("alert")).toContainText("INVALID_ARGUMENTS");
  await expect(drawer.getByTestId("step-row")).toHaveCount(5);
  await shot(page, "journal-console-call");
  await page.keyboard.press("Escape");

  await expect(
    page.getByTestId("telemetry-calls-chart").locator("svg.recharts-surface[role=application]"),
  ).toBeVisible();
  await expect(page.getByRole("table", { name: "Appels par outil et version" })).toContainText("create_chart@2");
  await shot(page, "journal-telemetry");
  expect(dialogs).toBe(0);
});

test("a viewer reads the Journal but cannot start runs or call tools", async ({ pageAs, api }) => {
  const agents = await (await api.get("/v1/agents?limit=1")).json();
  const created = await api.post("/v1/runs", { data: { agent: agents.data[0].id } });
  const runId: string = (await created.json()).data.id;
  const page = await pageAs("viewer");
  await openFromNav(page, "Journal");
  await expect(page.getByRole("heading", { name: "Runs" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Nouveau run" })).toHaveCount(0);
  await page.getByRole("button", { name: `Étapes du run ${runId}` }).click();
  const drawer = page.getByRole("dialog", { name: `Run ${runId}` });
  await expect(drawer.getByText("Outils du run (figés)")).toBeVisible();
  await expect(drawer.getByRole("button", { name: "Appeler" })).toHaveCount(0);
  await expect(drawer.getByRole("button", { name: "Annuler le run" })).toHaveCount(0);
});

test("a developer starts a run from the console and sees what was left out", async ({ pageAs, api, shot }) => {
  const name = `Écriture e2e ${Date.now()}`;
  const tools = (await (await api.get("/v1/tools")).json()).data as {
    key: string;
    writes_data: boolean;
    available: boolean;
  }[];
  const write = tools.find((t) => t.writes_data && t.available)!;
  expect((await api.post("/v1/agents", { data: { name, tools: [write.key] } })).status()).toBe(201);
  const page = await pageAs("dev");
  await openFromNav(page, "Journal");
  await page.getByRole("button", { name: "Nouveau run" }).click();
  const drawer = page.getByRole("dialog", { name: "Nouveau run" });
  await drawer.getByLabel("Agent", { exact: true }).selectOption({ label: name });
  await drawer.getByRole("button", { name: "Démarrer le run" }).click();
  const run = page.getByRole("dialog", { name: /^Run run_/ });
  await expect(run.getByText(`${write.key} écarté`)).toBeVisible();
  await expect(run.getByText("calculate@1")).toBeVisible();
  await shot(page, "journal-new-run-read-only");
});

test("a deleted agent's run stays in the Journal as « Agent supprimé », with its steps and no tool call", async ({
  pageAs,
  api,
  shot,
}) => {
  const agent = await api.post("/v1/agents", { data: { name: `Supprimé e2e ${Date.now()}` } });
  const agentId: string = (await agent.json()).data.id;
  const created = await api.post("/v1/runs", { data: { agent: agentId } });
  const runId: string = (await created.json()).data.id;
  expect(
    (
      await (
        await api.post(`/v1/runs/${runId}/tool_calls`, {
          data: { tool: "calculate", arguments: { expression: "2 + 2" } },
        })
      ).json()
    ).ok,
  ).toBe(true);
  expect((await api.delete(`/v1/agents/${agentId}`)).status()).toBe(200);

  const page = await pageAs("dev");
  await openFromNav(page, "Journal");
  const row = page.getByRole("row", { name: new RegExp(runId) });
  await expect(row).toContainText("Agent supprimé");
  await row.getByRole("button", { name: `Étapes du run ${runId}` }).click();
  const drawer = page.getByRole("dialog", { name: `Run ${runId}` });
  await expect(drawer).toContainText("Agent supprimé : le run et ses étapes sont conservés");
  await expect(drawer.getByTestId("step-row")).toHaveCount(1);
  await expect(drawer.getByRole("row", { name: /calculate@1/ })).toContainText("OK");
  await expect(drawer.getByRole("button", { name: "Appeler" })).toHaveCount(0);
  await shot(page, "journal-deleted-agent-run");
});
