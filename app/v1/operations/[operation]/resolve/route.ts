import { resolveOperationEndpoint, serializeOperation } from "@/lib/operations/api";
import { resolveOperation } from "@/lib/operations/service";
import { ApiError } from "@/lib/http/errors";
import { handle } from "@/lib/http/handler";

// POST /v1/operations/{operation}/resolve — an operator's verdict on an unknown outcome (signed in)
export const POST = handle(resolveOperationEndpoint, async ({ principal, params, body }) => {
  if (principal.kind !== "member") throw new ApiError("forbidden", "Only a signed-in operator can resolve an outcome.");
  const operation = await resolveOperation(principal.organizationId, params.operation, {
    memberId: principal.memberId,
    email: principal.email,
    outcome: body.outcome,
    reason: body.reason,
  });
  return { data: serializeOperation(operation) };
});
