import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: [
      ".next/**",
      ".next-*/**",
      "node_modules/**",
      "lib/db/generated/**",
      "data/**",
      "test-results/**",
      "playwright-report/**",
      "next-env.d.ts",
    ],
  },
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // One concern per file (CONTRIBUTING.md: no file over about 350 lines of code);
    // a suite may run longer, a file of scenarios reads top to bottom.
    rules: { "max-lines": ["error", { max: 350, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ["tests/**", "**/*.test.ts", "e2e/**"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "max-lines": ["error", { max: 500, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // The console reaches /v1 only through lib/client/call.ts and the endpoint
    // declarations, and keeps its React Query keys in each domain's queries.ts
    // (one key, one shape): a hand-written URL or key is how two pages came to
    // cache different shapes under the same key.
    files: ["components/**/*.{ts,tsx}", "app/(console)/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.name='fetch']",
          message: "Call /v1 with call(endpoint, …) from lib/client/call.ts.",
        },
        {
          selector: "Literal[value=/^\\/v1(\\/|$)/]",
          message: "No hand-written /v1 URL: use the endpoint declaration (call, endpointUrl).",
        },
        {
          selector: "TemplateElement[value.raw=/^\\/v1(\\/|$)/]",
          message: "No hand-written /v1 URL: use the endpoint declaration (call, endpointUrl).",
        },
        {
          selector: "Property[key.name='queryKey'] > ArrayExpression",
          message: "Build query keys with the domain's key factory in components/<domain>/queries.ts.",
        },
      ],
    },
  },
  {
    // Tool calls enter through lib/proposals/dispatch.ts, which gives the
    // dispatcher its write path; importing the dispatcher directly skips that.
    files: ["**/*.{ts,tsx}"],
    ignores: ["lib/dispatch/**", "lib/proposals/dispatch.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "@/lib/dispatch/dispatcher",
              message: "Import dispatchToolCall from @/lib/proposals/dispatch: it registers the write path.",
            },
          ],
        },
      ],
    },
  },
  {
    // Playwright fixtures call `use`, which is not React's hook.
    files: ["e2e/**"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
];

export default config;
