import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScript, scriptRecord } from "./control";
import { namedScriptId, type ScriptBody } from "./script";
import { startModelSim, type ModelSimServer } from "./server";

// model-sim checked with the official client Guichet uses: if the client can
// read its answers (and its stream accumulator rebuilds them), they are on protocol.

let sim: ModelSimServer;
let client: OpenAI;

beforeAll(async () => {
  sim = await startModelSim({ apiKey: "sk-sim-test", enableControl: true });
  client = new OpenAI({ baseURL: sim.url, apiKey: "sk-sim-test", maxRetries: 0, timeout: 5_000 });
});
afterAll(async () => sim.close());

const weatherTool = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "Weather of a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false,
    },
  },
};

async function scripted(turns: ScriptBody["turns"]) {
  return createScript(sim.baseUrl, { turns });
}

describe("model-sim speaks chat completions", () => {
  it("answers text, with usage, and records the request it received", async () => {
    const script = await scripted([{ text: "Bonjour !", usage: { prompt_tokens: 11, completion_tokens: 3 } }]);
    const completion = await client.chat.completions.create({
      model: "model-sim",
      messages: [
        { role: "system", content: `Tu es poli. ${script.marker}` },
        { role: "user", content: "Salut" },
      ],
    });
    expect(completion.object).toBe("chat.completion");
    expect(completion.choices[0].message).toMatchObject({ role: "assistant", content: "Bonjour !" });
    expect(completion.choices[0].finish_reason).toBe("stop");
    expect(completion.usage).toEqual({ prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 });
    const record = await scriptRecord(sim.baseUrl, script.id);
    expect(record.served).toBe(1);
    expect(record.requests[0].messages.map((m) => m.role)).toEqual(["system", "user"]);
  });

  it("answers tool calls, then reads the tool result in the next turn", async () => {
    const script = await scripted([
      { tool_calls: [{ name: "get_weather", arguments: { city: "Lyon" } }] },
      { text: "Il fait beau à Lyon." },
    ]);
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: "user", content: `Météo ? ${script.marker}` }];
    const first = await client.chat.completions.create({
      model: "model-sim",
      messages,
      tools: [weatherTool],
      tool_choice: "auto",
    });
    const call = first.choices[0].message.tool_calls?.[0];
    expect(first.choices[0].finish_reason).toBe("tool_calls");
    expect(call?.type).toBe("function");
    if (call?.type !== "function") throw new Error("no function call");
    expect(JSON.parse(call.function.arguments)).toEqual({ city: "Lyon" });
    messages.push(first.choices[0].message, { role: "tool", tool_call_id: call.id, content: '{"sky":"clear"}' });
    const second = await client.chat.completions.create({ model: "model-sim", messages, tools: [weatherTool] });
    expect(second.choices[0].message.content).toBe("Il fait beau à Lyon.");
    const record = await scriptRecord(sim.baseUrl, script.id);
    expect(record.requests[1].messages[2]).toMatchObject({ role: "tool", tool_call_id: call.id });
    expect(record.requests[0].tools?.[0].function.name).toBe("get_weather");
  });

  it("streams text and tool calls in chunks the client's accumulator rebuilds, usage last", async () => {
    const script = await scripted([
      {
        text: "Une réponse assez longue pour plusieurs morceaux.",
        tool_calls: [{ name: "get_weather", arguments: { city: "Nantes" } }],
      },
    ]);
    const stream = client.chat.completions.stream({
      model: "model-sim",
      messages: [{ role: "user", content: `Go ${script.marker}` }],
      tools: [weatherTool],
      stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    stream.on("content.delta", ({ delta }) => deltas.push(delta));
    const final = await stream.finalChatCompletion();
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Une réponse assez longue pour plusieurs morceaux.");
    const call = final.choices[0].message.tool_calls?.[0];
    if (call?.type !== "function") throw new Error("no function call");
    expect(call.function.name).toBe("get_weather");
    expect(JSON.parse(call.function.arguments)).toEqual({ city: "Nantes" });
    expect(final.choices[0].finish_reason).toBe("tool_calls");
    expect(final.usage?.total_tokens).toBeGreaterThan(0);
  });

  it("streams raw chunks ending with a usage-only chunk when asked", async () => {
    const script = await scripted([{ text: "ok" }]);
    const stream = await client.chat.completions.create({
      model: "model-sim",
      messages: [{ role: "user", content: script.marker }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0].choices[0].delta.role).toBe("assistant");
    expect(chunks.at(-2)?.choices[0].finish_reason).toBe("stop");
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it("answers structured output with a json_schema response format", async () => {
    const script = await scripted([{ json: { city: "Lyon", temperature: 21 } }]);
    const completion = await client.chat.completions.parse({
      model: "model-sim",
      messages: [{ role: "user", content: script.marker }],
      response_format: {
        type: "json_schema",
        json_schema: {
          name: "weather",
          strict: true,
          schema: {
            type: "object",
            properties: { city: { type: "string" }, temperature: { type: "number" } },
            required: ["city", "temperature"],
            additionalProperties: false,
          },
        },
      },
    });
    expect(completion.choices[0].message.parsed).toEqual({ city: "Lyon", temperature: 21 });
    const record = await scriptRecord(sim.baseUrl, script.id);
    expect(record.requests[0].response_format).toMatchObject({ type: "json_schema", json_schema: { name: "weather" } });
  });

  it("sends malformed tool-call arguments verbatim", async () => {
    const script = await scripted([{ tool_calls: [{ name: "get_weather", raw_arguments: '{"city": "Ly' }] }]);
    const completion = await client.chat.completions.create({
      model: "model-sim",
      messages: [{ role: "user", content: script.marker }],
      tools: [weatherTool],
    });
    const call = completion.choices[0].message.tool_calls?.[0];
    if (call?.type !== "function") throw new Error("no function call");
    expect(call.function.arguments).toBe('{"city": "Ly');
    expect(() => JSON.parse(call.function.arguments)).toThrow();
  });

  it("answers scripted HTTP errors in the provider's error shape", async () => {
    const script = await scripted([{ error: { status: 500, message: "upstream down" } }, { error: { status: 429 } }]);
    const ask = () =>
      client.chat.completions.create({ model: "model-sim", messages: [{ role: "user", content: script.marker }] });
    await expect(ask()).rejects.toMatchObject({ status: 500, message: expect.stringContaining("upstream down") });
    await expect(ask()).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    // The script is spent: a further request is a loud error, never an invented answer.
    await expect(ask()).rejects.toMatchObject({ status: 500, message: expect.stringContaining("no turn left") });
  });

  it("makes a slow turn slow, and the client's timeout fires", async () => {
    const script = await scripted([{ text: "trop tard", delay_ms: 2_000 }]);
    const impatient = new OpenAI({ baseURL: sim.url, apiKey: "sk-sim-test", maxRetries: 0, timeout: 200 });
    await expect(
      impatient.chat.completions.create({ model: "model-sim", messages: [{ role: "user", content: script.marker }] }),
    ).rejects.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });

  it("refuses what a provider refuses: wrong key, unselected script, a tool message without its call", async () => {
    const wrongKey = new OpenAI({ baseURL: sim.url, apiKey: "sk-wrong", maxRetries: 0 });
    await expect(
      wrongKey.chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] }),
    ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    await expect(
      client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "no marker" }] }),
    ).rejects.toMatchObject({ status: 400 });
    const script = await scripted([{ text: "never" }]);
    await expect(
      client.chat.completions.create({
        model: "m",
        messages: [
          { role: "user", content: script.marker },
          { role: "tool", tool_call_id: "call_nope", content: "{}" },
        ],
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining("tool_call_id") });
    expect((await scriptRecord(sim.baseUrl, script.id)).served).toBe(0);
  });

  it("lists models, and replays a by_conversation script from its first turn for each new conversation", async () => {
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toEqual(["model-sim"]);
    const script = await createScript(sim.baseUrl, {
      turns: [{ text: "un" }, { text: "deux" }],
      replay: "by_conversation",
    });
    const ask = (messages: OpenAI.Chat.ChatCompletionMessageParam[]) =>
      client.chat.completions.create({ model: "m", messages });
    expect((await ask([{ role: "user", content: script.marker }])).choices[0].message.content).toBe("un");
    expect((await ask([{ role: "user", content: script.marker }])).choices[0].message.content).toBe("un");
    const next = await ask([
      { role: "user", content: script.marker },
      { role: "assistant", content: "un" },
      { role: "user", content: "et ?" },
    ]);
    expect(next.choices[0].message.content).toBe("deux");
  });

  it("calls the one offered tool a `*` name matches, and refuses a name no offered tool (or several) matches", async () => {
    const tool = (name: string) => ({ ...weatherTool, function: { ...weatherTool.function, name } });
    const script = await createScript(sim.baseUrl, {
      turns: [{ tool_calls: [{ name: "mcp_*_get_weather", arguments: { city: "Lyon" } }] }],
      replay: "by_conversation",
    });
    const ask = (tools: ReturnType<typeof tool>[]) =>
      client.chat.completions.create({ model: "m", messages: [{ role: "user", content: script.marker }], tools });
    const answer = await ask([tool("get_weather"), tool("mcp_7_get_weather"), tool("mcp_7_get_weather_history")]);
    expect(answer.choices[0].message.tool_calls?.map((call) => call.type === "function" && call.function.name)).toEqual(
      ["mcp_7_get_weather"],
    );
    await expect(ask([tool("get_weather")])).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("offers no tool of that name"),
    });
    await expect(ask([tool("mcp_1_get_weather"), tool("mcp_2_get_weather")])).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("matches several offered tools"),
    });
  });

  it("answers when_not_offered instead when a `*` tool is not offered, and quotes the last tool result", async () => {
    const script = await createScript(sim.baseUrl, {
      turns: [
        {
          text: "Je regarde.",
          tool_calls: [{ name: "mcp_*_get_weather", arguments: { city: "Lyon" } }],
          when_not_offered: "Cet outil ne m’est pas ouvert.",
        },
        { text: "Selon l’outil : {{last_tool_result}}." },
      ],
      replay: "by_conversation",
    });
    const offeredNothing = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: script.marker }],
      tools: [weatherTool],
    });
    expect(offeredNothing.choices[0]).toMatchObject({
      finish_reason: "stop",
      message: { content: "Cet outil ne m’est pas ouvert." },
    });
    const quoted = await client.chat.completions.create({
      model: "m",
      messages: [
        { role: "user", content: script.marker },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "mcp_3_get_weather", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c1", content: '{"temp":12}' },
      ],
    });
    expect(quoted.choices[0].message.content).toBe('Selon l’outil : {"temp":12}.');
  });

  it("replays by_user_turn from the first turn at each new user message of a conversation", async () => {
    const script = await createScript(sim.baseUrl, {
      turns: [{ text: "Premier." }, { text: "Second." }],
      replay: "by_user_turn",
    });
    const ask = (messages: OpenAI.Chat.ChatCompletionMessageParam[]) =>
      client.chat.completions.create({ model: "m", messages }).then((a) => a.choices[0].message.content);
    expect(await ask([{ role: "user", content: script.marker }])).toBe("Premier.");
    expect(
      await ask([
        { role: "user", content: script.marker },
        { role: "assistant", content: "Premier." },
        { role: "user", content: "Encore ?" },
      ]),
    ).toBe("Premier.");
    expect(
      await ask([
        { role: "user", content: script.marker },
        { role: "assistant", content: "Premier." },
      ]),
    ).toBe("Second.");
  });
});

describe("named scripts", () => {
  it("answers a conversation carrying sim:demo_<name> from the script given at start under that name", async () => {
    const named = await startModelSim({
      namedScripts: { [namedScriptId("boutique-orders.json")]: { turns: [{ text: "Nommé." }], replay: "sequential" } },
    });
    try {
      const namedClient = new OpenAI({ baseURL: named.url, apiKey: "none", maxRetries: 0, timeout: 5_000 });
      const answer = await namedClient.chat.completions.create({
        model: "m",
        messages: [{ role: "system", content: "Réponds. sim:demo_boutique_orders" }],
      });
      expect(answer.choices[0].message.content).toBe("Nommé.");
      await expect(
        namedClient.chat.completions.create({ model: "m", messages: [{ role: "user", content: "sim:demo_other" }] }),
      ).rejects.toMatchObject({ status: 400 });
    } finally {
      await named.close();
    }
  });
});
