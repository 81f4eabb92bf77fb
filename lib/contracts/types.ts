// The contract of one tool version: what may cross the boundary, how
// the executor must treat it, and what may come back out. Published versions
// are immutable; an incompatible change is a new version.

export type JsonSchema = Record<string, unknown>;

export type ToolEffect = "read" | "write";
/** safe: a read that may be repeated; idempotent: a write protected by an idempotency key and a status tool; never: not repeated. */
export type RetryClass = "safe" | "idempotent" | "never";
/**
 * What cancelling does to a call of this tool, and what the executor does about it:
 * abort — the call stops with its run (or its caller) even in flight;
 * not_interruptible — once sent, the service has it: cancelling the run does not cut the call, Guichet waits
 * for the answer (within the timeout) and records it, and an operation's cancel says `not_interruptible`;
 * cancel_tool — a long operation the service accepted: cancelling it calls the contract's
 * `long_running.cancel_tool` at the service, which stops the job if it is still running.
 */
export type Cancellation = "abort" | "not_interruptible" | "cancel_tool";
export type ToolKind = "native" | "data" | "mcp";

export interface ContractTarget {
  type: string;
  /** JSON pointer into the arguments of the target's id. */
  id_pointer: string;
  /** JSON pointer into the arguments of the version the write expects, when the service checks one. */
  version_pointer: string | null;
}

export interface Contract {
  key: string;
  version: number;
  kind: ToolKind;
  input_schema: JsonSchema;
  output_schema: JsonSchema;
  effect: ToolEffect;
  retry: RetryClass;
  idempotency: { key_field: string } | null;
  preview: string | null;
  target: ContractTarget | null;
  status_tool: string | null;
  timeout_ms: number;
  max_argument_bytes: number;
  /** JSON pointers of the result fields allowed out; everything else is cut. Arrays are walked through. */
  result_view: string[];
  cancellation: Cancellation;
  /** For MCP tools: where the call goes (the server row and the tool's own name there). */
  mcp: { server_id: number; tool: string } | null;
  /**
   * A write the service accepts at once and finishes later: the field of its
   * answer naming the job, the read tool that reports the job's state, and the
   * write that cancels it. Absent for every other tool (so their content, and
   * so their published versions, are unchanged).
   */
  long_running?: LongRunning;
}

export interface LongRunning {
  id_field: string;
  status_tool: string;
  cancel_tool: string | null;
}

/** `key@version` — the name of one exact contract version. */
export function versionedName(contract: Pick<Contract, "key" | "version">): string {
  return `${contract.key}@${contract.version}`;
}
