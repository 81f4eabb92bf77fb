import { handle } from "@/lib/http/handler";
import { updateOrganizationEndpoint } from "@/lib/tenancy/api";
import { assertInstanceOwner, assignPlan } from "@/lib/tenancy/organizations";

// PATCH /v1/organizations/{organization} — assign its plan (instance owner)
export const PATCH = handle(updateOrganizationEndpoint, async ({ principal, params, body }) => {
  await assertInstanceOwner(principal);
  return { data: await assignPlan(params.organization, body.plan) };
});
