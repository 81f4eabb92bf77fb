import { cancelOperationEndpoint, serializeOperation } from "@/lib/operations/api";
import { cancelLongOperation, serviceContext } from "@/lib/operations/long";
import { cancelOperation } from "@/lib/operations/service";
import { handle } from "@/lib/http/handler";

// POST /v1/operations/{operation}/cancel — stopped, already finished, or cannot be interrupted
export const POST = handle(cancelOperationEndpoint, async ({ principal, params }) => {
  const { operation, outcome } = await cancelOperation(principal.organizationId, params.operation, async (long) =>
    cancelLongOperation(long, await serviceContext(long)),
  );
  return { data: serializeOperation(operation), outcome };
});
