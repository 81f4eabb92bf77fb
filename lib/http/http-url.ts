import { z } from "zod";

// The one schema of a URL a caller gives Guichet to reach (an MCP server, a
// webhook endpoint, a model provider): absolute, http or https, at most 2000
// characters. Where it may point is the network policy's business (lib/net),
// decided when it is saved and again on every connection. Safe for the browser.

export function httpUrl(options: { credentials: "allowed" | "refused" } = { credentials: "allowed" }) {
  const refuseCredentials = options.credentials === "refused";
  return z
    .string()
    .trim()
    .min(1)
    .max(2000)
    .refine(
      (value) => {
        try {
          const url = new URL(value);
          if (url.protocol !== "http:" && url.protocol !== "https:") return false;
          return !refuseCredentials || (!url.username && !url.password);
        } catch {
          return false;
        }
      },
      refuseCredentials ? "Must be an absolute http(s) URL without credentials." : "Must be an absolute http(s) URL.",
    )
    .meta({ format: "uri" });
}
