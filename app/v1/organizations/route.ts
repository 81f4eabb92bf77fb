import { actorOf } from "@/lib/audit/record";
import { hashPassword } from "@/lib/auth/passwords";
import { db } from "@/lib/db";
import { handle } from "@/lib/http/handler";
import { createOrganizationEndpoint, listOrganizationsEndpoint } from "@/lib/tenancy/api";
import {
  assertInstanceOwner,
  createOrganizationWithOwner,
  listOrganizations,
  organizationView,
} from "@/lib/tenancy/organizations";

// GET /v1/organizations — every organization (instance owner)
export const GET = handle(listOrganizationsEndpoint, async ({ principal }) => {
  await assertInstanceOwner(principal);
  return { data: await listOrganizations(), next_cursor: null };
});

// POST /v1/organizations — a new organization, its plan and its owner (instance owner)
export const POST = handle(createOrganizationEndpoint, async ({ principal, body }) => {
  await assertInstanceOwner(principal);
  const passwordHash = await hashPassword(body.owner.password);
  const { organization } = await db.$transaction((tx) =>
    createOrganizationWithOwner(
      {
        organization: body.name,
        planId: body.plan,
        owner: { ...body.owner, passwordHash },
        origin: { via: "instance_owner", actor: actorOf(principal) },
      },
      tx,
    ),
  );
  return { data: await organizationView(organization.id) };
});
