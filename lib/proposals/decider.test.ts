import { describe, expect, it } from "vitest";
import { roleBar, selfApprovalBar } from "./decider";

const fourEyes = { rule: "refunds", approver_roles: ["owner", "approver"], requester_can_approve: false };

describe("who may decide on a proposal", () => {
  it("lets only the rule's roles decide", () => {
    expect(roleBar(fourEyes, "approver")).toBeNull();
    expect(roleBar(fourEyes, "developer")).toEqual({ code: "role_not_allowed" });
  });

  it("never counts the approval of whoever asked for the write or revised it, unless the rule allows", () => {
    const proposal = { requestedBy: "mem_dana", revisedBy: "mem_alex" };
    expect(selfApprovalBar(fourEyes, proposal, "mem_dana")).toEqual({ code: "requested_by_you" });
    expect(selfApprovalBar(fourEyes, proposal, "mem_alex")).toEqual({ code: "revised_by_you" });
    expect(selfApprovalBar(fourEyes, proposal, "mem_olga")).toBeNull();
    expect(selfApprovalBar({ ...fourEyes, requester_can_approve: true }, proposal, "mem_dana")).toBeNull();
  });
});
