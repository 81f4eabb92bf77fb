import { describe, expect, it } from "vitest";
import { grantedSlugs, originsGrantedTo, parseOriginGrants } from "./origin-grants-syntax";

const parse = (value: string) => parseOriginGrants("GUICHET_PRIVATE_ORIGINS", value);

describe("GUICHET_PRIVATE_ORIGINS grants", () => {
  it("grants an origin to named organizations or to every one", () => {
    const grants = parse("http://127.0.0.1:4010=acme, http://127.0.0.1:4020/=acme|globex ,http://localhost:4030=*");
    expect(grants).toEqual([
      { origin: "http://127.0.0.1:4010", orgs: ["acme"] },
      { origin: "http://127.0.0.1:4020", orgs: ["acme", "globex"] },
      { origin: "http://localhost:4030", orgs: "*" },
    ]);
    expect(originsGrantedTo(grants, "acme")).toEqual([
      "http://127.0.0.1:4010",
      "http://127.0.0.1:4020",
      "http://localhost:4030",
    ]);
    expect(originsGrantedTo(grants, "globex")).toEqual(["http://127.0.0.1:4020", "http://localhost:4030"]);
    expect(originsGrantedTo(grants, "initech")).toEqual(["http://localhost:4030"]);
    expect([...grantedSlugs(grants)].sort()).toEqual(["acme", "globex"]);
  });

  it("merges repeated origins, and * wins", () => {
    expect(parse("http://10.0.0.1=a,http://10.0.0.1=b")).toEqual([{ origin: "http://10.0.0.1", orgs: ["a", "b"] }]);
    expect(parse("http://10.0.0.1=a,http://10.0.0.1=*,http://10.0.0.1=b")).toEqual([
      { origin: "http://10.0.0.1", orgs: "*" },
    ]);
    expect(parse("")).toEqual([]);
  });

  it("refuses a bare origin with a one-line message naming the entry and the syntax", () => {
    expect(() => parse("http://127.0.0.1:4010")).toThrow(
      /^Invalid environment: GUICHET_PRIVATE_ORIGINS entry "http:\/\/127\.0\.0\.1:4010" has no grant; expected <origin>=<slug>\[\|<slug>\.\.\.\] or <origin>=\*/,
    );
    expect(() => parse("http://127.0.0.1:4010")).not.toThrow(/\n/);
  });

  it.each([
    ["ftp://10.0.0.1=acme", "is not an http(s) origin"],
    ["http://10.0.0.1/path=acme", "is not an http(s) origin"],
    ["not a url=acme", "is not an http(s) origin"],
    ["http://10.0.0.1=", "invalid organization slug"],
    ["http://10.0.0.1=Acme", "invalid organization slug"],
    ["http://10.0.0.1=acme||globex", "invalid organization slug"],
  ])("refuses %s", (entry, why) => {
    expect(() => parse(entry)).toThrow(why);
  });
});
