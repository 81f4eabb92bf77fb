import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Seed 000: « Si une compensation existe, exposez-la comme une écriture séparée
// avec son propre aperçu et sa propre approbation. Ne parlez pas de rollback si
// la compensation crée un nouvel événement métier. » Everything Guichet says to a
// model, an API client or a person — the OpenAPI document, the published tool
// contracts, CRM Acme's tools, the console's text — is read here.

const said = ["openapi/openapi.json", "lib/contracts/contracts.lock.json", "connectors/acme-crm/tools.ts"];
const consoleText = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return consoleText(file);
    return /\.tsx?$/.test(name) && !name.endsWith(".test.ts") ? [file] : [];
  });

describe("the words for an effect that cannot be undone", () => {
  it("never promise a rollback, anywhere Guichet speaks", () => {
    const files = [...said, ...consoleText("components"), ...consoleText("app")];
    expect(files.length).toBeGreaterThan(50);
    const promises = files.flatMap((file) =>
      (
        readFileSync(file, "utf8").match(
          /\b(roll(ed)?[ -]?back|rétablissement automatique|annulation automatique)\b/gi,
        ) ?? []
      ).map((word) => `${file}: ${word}`),
    );
    expect(promises).toEqual([]);
  });
});
