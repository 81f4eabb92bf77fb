import "server-only";
import { registerWritePath } from "@/lib/dispatch/write-path";
import { proposalsWritePath } from "./write-path";

// Where tool calls enter: the dispatcher with the proposals engine as its
// write path. The dispatcher does not import lib/proposals (it only defines
// the WritePath it needs); this module wires the two, once, for every caller.

registerWritePath(proposalsWritePath);

export { dispatchToolCall, validateArguments, type ToolEnvelope } from "@/lib/dispatch/dispatcher";
export { argumentsSchemaFor } from "@/lib/dispatch/write-path";
