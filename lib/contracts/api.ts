import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { ContractObject, ContractParams, ContractQuery } from "./schemas";

export * from "./schemas";

export const getContractEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/tools/{key}/contract",
  tag: "Tools",
  summary:
    "A tool's contract: the current version (or ?version=N) with its schemas, effect, retry class, limits and result view, and its version history",
  auth: "both",
  scopes: ["tools:read", "agents:read", "runs:read"],
  params: ContractParams,
  query: ContractQuery,
  response: z.object({ data: ContractObject }),
  errors: ["not_found"],
});
