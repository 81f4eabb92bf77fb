import { MANAGER_ROLES } from "@/lib/auth/scopes";
import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { ReplayBody, ReplayParams, ReplayReport } from "./schemas";

export * from "./schemas";

// Replay reads every traced run's calls of a tool: owners and admins, in the console (keys have no admin scope).
export const replayContractEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/contracts/{key}/replay",
  tag: "Tools",
  summary:
    "Check every recorded call of a tool against a contract version's validation, without executing anything: how many would it refuse, where",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: ReplayParams,
  body: ReplayBody,
  response: z.object({ data: ReplayReport }),
  errors: ["not_found", "forbidden"],
});
