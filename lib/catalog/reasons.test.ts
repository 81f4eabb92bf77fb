import { describe, expect, it } from "vitest";
import { reason, reasonFr } from "./reasons";

describe("unavailability reasons", () => {
  it("names the missing setting of a not_configured tool, in the API's message and the console's words", () => {
    const missing = reason("not_configured", "GUICHET_SEARCH_URL");
    expect(missing).toEqual({
      code: "not_configured",
      message: "This tool needs GUICHET_SEARCH_URL, which is not set on this server.",
    });
    expect(reasonFr(missing)).toBe(
      "Cet outil a besoin du réglage GUICHET_SEARCH_URL, que l’opérateur n’a pas défini sur ce serveur.",
    );
  });

  it("keeps the fixed words of the other codes, and an unknown code's own message", () => {
    expect(reasonFr(reason("plan_feature_missing"))).toBe("Votre formule n’inclut pas les données structurées.");
    expect(reasonFr({ code: "tool_removed", message: "This tool is no longer in the catalog." })).toBe(
      "This tool is no longer in the catalog.",
    );
  });
});
