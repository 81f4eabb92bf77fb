import { describe, expect, it } from "vitest";
import { checkAgainst } from "@/lib/contracts/schema";
import { findLeaks, mask, redact } from "./redact";

const planted = {
  email: "camille.martin@exemple.fr",
  iban: "FR7630006000011234567890189",
  spacedIban: "FR76 3000 6000 0112 3456 7890 189",
  phone: "+33 6 12 34 56 78",
  national: "06 12 34 56 78",
  token: "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e",
};

describe("redact", () => {
  it("masks e-mails, IBANs, phone numbers and tokens wherever they appear, keeping their shape", () => {
    const { value, redactions } = redact({
      contact: planted.email,
      note: `Virement sur ${planted.spacedIban}, rappeler au ${planted.national} ou ${planted.phone}.`,
      iban: planted.iban,
      header: `Bearer ${planted.token}`,
      customer_id: "C-1842",
      count: 25,
    });
    const text = JSON.stringify(value);
    for (const secret of Object.values(planted)) expect(text).not.toContain(secret);
    expect(value).toMatchObject({
      contact: "xxxxxxx.xxxxxx@xxxxxxx.xx",
      iban: "XX11111111111111111111111111".slice(0, planted.iban.length),
      customer_id: "C-1842",
      count: 25,
    });
    expect((value as { note: string }).note).toBe(
      "Virement sur XX11 1111 1111 1111 1111 1111 111, rappeler au 11 11 11 11 11 ou +11 1 11 11 11 11.",
    );
    expect(redactions.map((r) => [r.pointer, r.kind])).toEqual([
      ["/contact", "email"],
      ["/note", "iban"],
      ["/iban", "iban"],
      ["/header", "secret"],
    ]);
  });

  it("masks everything under a secret-looking key or an x-sensitive field, numbers staying numbers", () => {
    const schema = {
      type: "object",
      properties: {
        account: { type: "object", "x-sensitive": true },
        items: { type: "array", items: { type: "object", properties: { pin: { "x-sensitive": true } } } },
      },
    };
    const { value, redactions } = redact(
      {
        api_key: "abc",
        Password: 1234,
        account: { holder: "Camille", balance: -4321.5, active: true },
        items: [{ pin: 9876, label: "ok" }],
      },
      schema,
    );
    expect(value).toEqual({
      api_key: "xxx",
      Password: 1000,
      account: { holder: "Xxxxxxx", balance: -1000, active: false },
      items: [{ pin: 1000, label: "ok" }],
    });
    expect(redactions).toEqual([
      { pointer: "/api_key", kind: "secret" },
      { pointer: "/Password", kind: "secret" },
      { pointer: "/account", kind: "sensitive" },
      { pointer: "/items/0/pin", kind: "sensitive" },
    ]);
  });

  it("keeps what a schema can say about the value: a masked e-mail is still an e-mail, lengths and patterns hold", () => {
    const schema = {
      type: "object",
      properties: {
        email: { type: "string", format: "email", maxLength: 25 },
        iban: { type: "string", pattern: "^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$" },
        phone: { type: "string", pattern: "^\\+[1-9][0-9 ]{6,20}$" },
      },
      required: ["email", "iban", "phone"],
      additionalProperties: false,
    };
    const original = { email: planted.email, iban: planted.iban, phone: planted.phone };
    expect(checkAgainst(schema, original)).toBeNull();
    const { value } = redact(original, schema);
    expect(value).not.toEqual(original);
    expect(checkAgainst(schema, value)).toBeNull();
  });

  it("leaves ids, timestamps and amounts alone", () => {
    const value = {
      run: "run_01jd3k5q7w8e9r0t1y2u3i4o5p",
      at: "2026-12-02T07:00:00.000Z",
      amount: "1234.50",
      zip: "75011",
    };
    expect(redact(value)).toEqual({ value, redactions: [] });
  });

  it("masks letters, digits and nothing else", () => {
    expect(mask("Élodie-42 @ x.fr")).toBe("Xxxxxx-11 @ x.xx");
  });
});

describe("findLeaks", () => {
  const sample = {
    contact: planted.email,
    note: `Virement sur ${planted.spacedIban}, rappeler au ${planted.national}.`,
    nested: [{ phone: planted.phone, [planted.iban]: "clé" }],
    token: "short",
    tools_sha256: "9087c57a5e132f3f76044fc533ec31f7b4a94df70da57bcb081b2e6bd6cc3cdb",
    other_sha256: "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e",
    header: `Bearer ${planted.token}`,
    customer_id: "C-1842",
  };

  it("finds every planted value the redaction masks, with where it is", () => {
    expect(findLeaks(sample)).toEqual([
      { pointer: "/contact", kind: "email" },
      { pointer: "/note", kind: "iban" },
      { pointer: "/note", kind: "phone" },
      { pointer: "/nested/0/phone", kind: "phone" },
      { pointer: `/nested/0/${planted.iban}#key`, kind: "iban" },
      { pointer: "/token", kind: "secret" },
      { pointer: "/other_sha256", kind: "secret" },
      { pointer: "/header", kind: "secret" },
    ]);
  });

  it("finds none in what the redaction answers: placeholders are not leaks", () => {
    const { value } = redact(sample);
    expect(JSON.stringify(value)).toContain("xxxxxxx.xxxxxx@xxxxxxx.xx");
    // Keys are kept as they are by the redaction: only values are scanned there.
    expect(findLeaks(value).filter((leak) => !leak.pointer.endsWith("#key"))).toEqual([]);
  });
});
