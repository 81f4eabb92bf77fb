import { z } from "zod";

// The chat-completions request as OpenAI-compatible providers accept it: what a
// client must send. A request outside it is a 400 in the provider's error shape,
// so a client that speaks the protocol loosely fails here as it would in production.

const TextPart = z.object({ type: z.literal("text"), text: z.string() });
const Content = z.union([z.string(), z.array(TextPart).min(1)]);

const ToolCall = z.object({
  id: z.string().min(1),
  type: z.literal("function"),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

const Message = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: Content, name: z.string().optional() }),
  z.object({ role: z.literal("developer"), content: Content, name: z.string().optional() }),
  z.object({ role: z.literal("user"), content: Content, name: z.string().optional() }),
  z.object({
    role: z.literal("assistant"),
    content: Content.nullable().optional(),
    tool_calls: z.array(ToolCall).optional(),
    refusal: z.string().nullable().optional(),
    name: z.string().optional(),
  }),
  z.object({ role: z.literal("tool"), content: Content, tool_call_id: z.string().min(1) }),
]);
export type ChatMessage = z.infer<typeof Message>;

const FunctionName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "function names are 1-64 letters, digits, _ or -");

const Tool = z.object({
  type: z.literal("function"),
  function: z.object({
    name: FunctionName,
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

const ToolChoice = z.union([
  z.enum(["none", "auto", "required"]),
  z.object({ type: z.literal("function"), function: z.object({ name: FunctionName }) }),
]);

const ResponseFormat = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text") }),
  z.object({ type: z.literal("json_object") }),
  z.object({
    type: z.literal("json_schema"),
    json_schema: z.object({
      name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullable().optional(),
    }),
  }),
]);

// Loose on purpose at the top level: providers ignore sampling options they do not know.
export const ChatRequest = z
  .object({
    model: z.string().min(1),
    messages: z.array(Message).min(1),
    tools: z.array(Tool).max(128).optional(),
    tool_choice: ToolChoice.optional(),
    parallel_tool_calls: z.boolean().optional(),
    response_format: ResponseFormat.optional(),
    stream: z.boolean().nullable().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).nullable().optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    max_tokens: z.number().int().positive().nullable().optional(),
    max_completion_tokens: z.number().int().positive().nullable().optional(),
  })
  .superRefine((request, ctx) => {
    // Every tool message answers a tool call of an earlier assistant message, as providers require.
    const open = new Set<string>();
    request.messages.forEach((message, index) => {
      if (message.role === "assistant") for (const call of message.tool_calls ?? []) open.add(call.id);
      if (message.role === "tool" && !open.has(message.tool_call_id)) {
        ctx.addIssue({
          code: "custom",
          path: ["messages", index, "tool_call_id"],
          message: `no earlier tool call has id ${message.tool_call_id}`,
        });
      }
    });
    if (
      request.tool_choice &&
      request.tool_choice !== "none" &&
      request.tool_choice !== "auto" &&
      !request.tools?.length
    ) {
      ctx.addIssue({ code: "custom", path: ["tool_choice"], message: "tool_choice needs tools" });
    }
  });
export type ChatRequest = z.infer<typeof ChatRequest>;

/** The provider error body: `{error: {message, type, param, code}}`. */
export function errorBody(status: number, message: string, param: string | null = null) {
  const type =
    status === 401
      ? "authentication_error"
      : status === 429
        ? "rate_limit_error"
        : status >= 500
          ? "server_error"
          : "invalid_request_error";
  return { error: { message, type, param, code: null } };
}

/** All text of the conversation, to look for a script marker. */
export function conversationText(messages: ChatMessage[]): string {
  return messages
    .map((message) => {
      const content = message.content;
      if (typeof content === "string") return content;
      if (Array.isArray(content)) return content.map((part) => part.text).join("\n");
      return "";
    })
    .join("\n");
}
