import { acceptInvitationRoute } from "@/lib/members/api";
import { acceptInvitation } from "@/lib/members/invitations";
import { json } from "@/lib/http/handler";
import { readJsonBody } from "@/lib/http/body";
import { toErrorEnvelope } from "@/lib/http/errors";
import { parseInput } from "@/lib/http/validation";
import { newId } from "@/lib/ids";

// POST /api/invitations/accept — public: the invitation's token is the credential.
// The accept page posts here, then signs in with the chosen password through next-auth.
export async function POST(request: Request): Promise<Response> {
  const requestId = newId("req");
  try {
    const body = parseInput(acceptInvitationRoute.body, await readJsonBody(request));
    const member = await acceptInvitation(body);
    return json({ data: { id: member.id, email: member.email } }, 201, { "x-request-id": requestId });
  } catch (error) {
    const { status, body, headers } = toErrorEnvelope(error, requestId);
    return json(body, status, { ...headers, "x-request-id": requestId });
  }
}
