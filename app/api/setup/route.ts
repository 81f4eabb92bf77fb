import { clientAddress } from "@/lib/auth/client-address";
import { json } from "@/lib/http/handler";
import { readJsonBody } from "@/lib/http/body";
import { ApiError, toErrorEnvelope } from "@/lib/http/errors";
import { parseInput } from "@/lib/http/validation";
import { newId } from "@/lib/ids";
import { log } from "@/lib/log";
import { setupRoute } from "@/lib/tenancy/api";
import { setUpOrganization, setupStatus } from "@/lib/tenancy/organizations";

// The console's « Créer votre organisation »: before anyone can sign in, so it is
// not a /v1 endpoint (those always authenticate). It creates the instance's first
// organization and owner once; afterwards only when GUICHET_ALLOW_SIGNUP=1. The
// browser signs the new owner in with the same credentials right after.

export const dynamic = "force-dynamic";

// GET /api/setup — whether the first run is still open, and whether sign-up is
export async function GET() {
  return json({ data: await setupStatus() }, 200, { "cache-control": "no-store" });
}

/** Only our own pages post here (an Origin we cannot read is not ours either). */
function assertSameOrigin(request: Request) {
  const origin = request.headers.get("origin");
  if (origin === null) return;
  if (!URL.canParse(origin) || new URL(origin).host !== request.headers.get("host"))
    throw new ApiError("forbidden", "Cross-site request refused.");
}

// POST /api/setup — {organization, name, email, password}
export async function POST(request: Request) {
  const requestId = newId("req");
  try {
    assertSameOrigin(request);
    const body = parseInput(setupRoute.body, await readJsonBody(request));
    const { organization, member, firstRun } = await setUpOrganization(body, clientAddress(request.headers));
    log("info", firstRun ? "instance_set_up" : "organization_signed_up", {
      organization_id: organization.id,
      member_id: member.id,
    });
    return json(
      {
        data: {
          organization: {
            id: organization.id,
            name: organization.name,
            slug: organization.slug,
            plan: organization.planId,
          },
          owner: { id: member.id, email: member.email, instance_owner: member.instanceOwner },
        },
      },
      201,
      { "x-request-id": requestId },
    );
  } catch (error) {
    const { status, body, headers } = toErrorEnvelope(error, requestId);
    return json(body, status, { ...headers, "x-request-id": requestId });
  }
}
