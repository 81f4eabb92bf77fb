import type { ErrorCode } from "@/lib/http/errors";

// What a business refusal means on the operation that returns it, shown next to
// its code in the document. Codes without an entry are listed bare: their meaning
// is the same everywhere (unauthenticated, rate_limited, not_found…).
type Refusals = Partial<Record<ErrorCode, string>>;

const modelAndTools: Refusals = {
  model_unavailable: "`model` is not among the plan's models (GET /v1/models); `errors[0].field` is `model`.",
  unknown_tool: "a key in `tools` is not in the organization's catalog (GET /v1/tools); `errors[].field` points at it (`tools[2]`).",
  tool_unavailable: "a new key in `tools` exists but cannot be used now (connector down or tool not reviewed); saved keys are kept.",
  output_schema_unsupported: "`output_schema` is set but the model has no structured output.",
  invalid_parameter:
    "a field breaks its schema; also two `client_tools` with the same `name` (`errors[].code` `duplicate` at `client_tools[i].name`), " +
    "or an `output_schema` / client tool `parameters` that is not a valid, bounded JSON Schema.",
};

const upload: Refusals = {
  unsupported_file_type: "the type is detected from the bytes, never from the name or the declared type: plain text, Markdown, CSV, JSON (UTF-8) and PDF only.",
  unsupported_media_type: "the request is not `multipart/form-data` with a boundary.",
  unknown_parameter: "a multipart field other than `file` was sent (`errors[0].field` names it).",
  invalid_parameter: "no `file` part, a `file` sent as a plain field, or more than one file.",
  file_too_large: "the file exceeds the plan's per-file limit.",
  storage_quota_exceeded: "the organization's stored files would exceed the plan's quota.",
};

export const refusals: Record<string, Refusals> = {
  createAgent: { ...modelAndTools, quota_exceeded: "the plan's number of agents is reached." },
  updateAgent: modelAndTools,
  uploadFile: upload,
  uploadDocument: { ...upload, too_many_documents: "the agent already has the maximum number of knowledge documents." },
  createRun: {
    agent_inactive: "the agent is deactivated (`active: false`).",
    not_found: "`agent` or one of `files` is not an id of this organization.",
  },
  callTool: {
    not_found: "no run with this id in the organization.",
    unknown_parameter: "a body field other than `tool`, `arguments` and the documented options.",
  },
};
