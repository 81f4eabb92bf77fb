import { describe, expect, it } from "vitest";
import { callbackPathOrDefault, DEFAULT_CALLBACK_PATH, safeCallbackPath, signInPathFor } from "./callback-url";
import { authCookieNames, usesSecureCookies } from "./cookies";

const origin = "http://localhost:3000";

describe("safeCallbackPath", () => {
  it("keeps same-origin relative paths with their query and hash", () => {
    expect(safeCallbackPath("/agents")).toBe("/agents");
    expect(safeCallbackPath("/audit?page=2#top")).toBe("/audit?page=2#top");
  });

  it("reduces an absolute URL on the console's origin to its path", () => {
    expect(safeCallbackPath("http://localhost:3000/membres?x=1", origin)).toBe("/membres?x=1");
  });

  it.each([
    "x",
    "",
    "//evil.example/agents",
    "/\\evil.example",
    "/\\/evil.example",
    "\\\\evil.example",
    "https://evil.example/agents",
    "http://localhost:3001/agents",
    "javascript:alert(1)",
    "/agents\n//evil",
    "/\tevil",
    "%",
    "http://",
  ])("refuses %j", (value) => {
    expect(safeCallbackPath(value, origin)).toBeNull();
    expect(callbackPathOrDefault(value, origin)).toBe(DEFAULT_CALLBACK_PATH);
  });

  it("refuses an absolute URL when no origin is known, and non-strings", () => {
    expect(safeCallbackPath("http://localhost:3000/agents")).toBeNull();
    expect(safeCallbackPath(undefined)).toBeNull();
    expect(safeCallbackPath(["/agents"])).toBeNull();
    expect(safeCallbackPath(`/${"a".repeat(3000)}`)).toBeNull();
  });
});

describe("signInPathFor", () => {
  it("carries the requested console page, query included, to the sign-in page", () => {
    expect(signInPathFor("/approbations/prop_01J")).toBe("/connexion?callbackUrl=%2Fapprobations%2Fprop_01J");
    expect(signInPathFor("/audit?page=2")).toBe("/connexion?callbackUrl=%2Faudit%3Fpage%3D2");
  });

  it("drops Next's _rsc marker of a client-side navigation", () => {
    expect(signInPathFor("/approbations/prop_01J?_rsc=1x2y")).toBe("/connexion?callbackUrl=%2Fapprobations%2Fprop_01J");
  });

  it.each([
    "//evil.example",
    "https://evil.example",
    "/\\evil.example",
    "/\\evil.example/approbations",
    "//evil.example/approbations",
    "https://evil.example/approbations",
    "/approbations\n//evil",
    "",
    null,
    undefined,
  ])("sends %j to the bare sign-in page", (value) => {
    expect(signInPathFor(value)).toBe("/connexion");
  });

  it("adds nothing for the default page, the root or the sign-in page itself", () => {
    expect(signInPathFor("/agents")).toBe("/connexion");
    expect(signInPathFor("/")).toBe("/connexion");
    expect(signInPathFor("/connexion?callbackUrl=%2Faudit")).toBe("/connexion");
  });
});

describe("auth cookie names", () => {
  it("uses __Host- names over https and plain names over http", () => {
    expect(usesSecureCookies("https://guichet.example")).toBe(true);
    expect(usesSecureCookies("http://localhost:3000")).toBe(false);
    expect(usesSecureCookies(undefined)).toBe(false);
    expect(authCookieNames(true).sessionToken).toBe("__Host-next-auth.session-token");
    expect(authCookieNames(false).callbackUrl).toBe("next-auth.callback-url");
  });
});
