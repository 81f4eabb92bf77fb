import { describe, expect, it } from "vitest";
import { createAgentEndpoint } from "@/lib/agents/api";
import { Role } from "@/lib/auth/scopes";
import { listMembersEndpoint } from "@/lib/members/api";
import { defineEndpoint, mayCall } from "./endpoint";

describe("mayCall: what a page offers a member", () => {
  it("follows the endpoint's roles", () => {
    expect(Role.options.filter((role) => mayCall(listMembersEndpoint, role))).toEqual(["owner", "admin"]);
  });

  it("follows the scopes a role carries", () => {
    expect(Role.options.filter((role) => mayCall(createAgentEndpoint, role))).toEqual(["owner", "admin", "developer"]);
  });

  it("offers no one an endpoint only API keys may call", () => {
    const keysOnly = defineEndpoint({ method: "POST", path: "/v1/x", summary: "x", tag: "x", auth: "apiKey" });
    expect(Role.options.filter((role) => mayCall(keysOnly, role))).toEqual([]);
  });
});
