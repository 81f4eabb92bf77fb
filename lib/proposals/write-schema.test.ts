import { describe, expect, it } from "vitest";
import { checkAgainst } from "@/lib/contracts/schema";
import { writeCallSchema } from "./write-schema";

const sendEmailInput = {
  type: "object",
  additionalProperties: false,
  required: ["to", "subject", "body", "idempotency_key"],
  properties: {
    to: { type: "array", items: { type: "string", format: "email" }, minItems: 1 },
    subject: { type: "string", minLength: 1 },
    body: { type: "string", minLength: 1 },
    idempotency_key: { type: "string", minLength: 8 },
  },
};

const base = { input_schema: sendEmailInput, idempotency: { key_field: "idempotency_key" }, target: null };

describe("the write call schema", () => {
  it("takes only a proposal id for a tool with a preview", () => {
    const schema = writeCallSchema({ ...base, preview: "mcp_1_preview_address_change" });
    expect(checkAgainst(schema, { proposal_id: "prop_01jabcdefghjkmnpqrstvwxyz0" })).toBeNull();
    expect(
      checkAgainst(schema, { proposal_id: "prop_01jabcdefghjkmnpqrstvwxyz0", customer_id: "C-1842" }),
    ).toMatchObject({ field: "/customer_id" });
    expect(
      checkAgainst(schema, {
        customer_id: "C-1842",
        destination: { kind: "saved", address_id: "ADDR-2" },
        expected_version: 17,
      }),
    ).not.toBeNull();
    expect(checkAgainst(schema, { proposal_id: "p_7f31" })).toMatchObject({ field: "/proposal_id" });
  });

  it("takes a proposal id or candidate arguments without the engine's key for a tool without preview", () => {
    const schema = writeCallSchema({ ...base, preview: null });
    expect(checkAgainst(schema, { to: ["a@example.fr"], subject: "s", body: "b" })).toBeNull();
    expect(checkAgainst(schema, { proposal_id: "prop_01jabcdefghjkmnpqrstvwxyz0" })).toBeNull();
    // The agent never picks the idempotency key.
    expect(
      checkAgainst(schema, { to: ["a@example.fr"], subject: "s", body: "b", idempotency_key: "agent-key-123" }),
    ).toMatchObject({ field: "/idempotency_key" });
    // Mixing both shapes is refused, pointing at the intruder.
    expect(checkAgainst(schema, { proposal_id: "prop_01jabcdefghjkmnpqrstvwxyz0", subject: "s" })).toMatchObject({
      field: "/subject",
    });
    expect(checkAgainst(schema, { to: ["a@example.fr"], subject: "", body: "b" })).toMatchObject({ field: "/subject" });
  });
});
