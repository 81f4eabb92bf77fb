import { describe, expect, it } from "vitest";
import { passwordProblem } from "./password-policy";

describe("passwordProblem", () => {
  it.each([
    ["short1!", "too_short"],
    ["é".repeat(40), "too_long"],
    ["Password2024!", "common"],
    ["azerty123456", "common"],
    ["motdepasse!!", "common"],
    ["aaaaaaaaaaaaaaa", "repetitive"],
    ["abcabcabcabc", "repetitive"],
    ["x1234567890y", "repetitive"],
    ["Zebra-dupont-nord", "contains_identity"],
  ])("refuses %s as %s", (password, problem) => {
    expect(passwordProblem(password, { email: "dupont@acme.test", organization: "Acme" })).toBe(problem);
  });

  it.each(["correct horse battery", "Vélo-rouge-sur-la-Loire", "tL9#qe2!Wm4p"])("accepts %s", (password) => {
    expect(passwordProblem(password, { email: "dupont@acme.test", organization: "Acme" })).toBeNull();
  });
});
