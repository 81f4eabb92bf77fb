import { newId } from "@/lib/ids";

// Any /v1 path that no endpoint declares: the 404 envelope, never an HTML page.
function notFound(): Response {
  const requestId = newId("req");
  return Response.json(
    { error: { code: "not_found", message: "No such endpoint.", request_id: requestId } },
    { status: 404, headers: { "x-request-id": requestId } },
  );
}

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
