import bcrypt from "bcryptjs";

// The shop's demo customers. Each signs in at Boutique's own login page and
// owns their orders; nothing else identifies them to the MCP server than the
// `sub` of the access token the authorization server issued for them.

export interface DemoAccount {
  /** The `sub` of their tokens. */
  id: string;
  email: string;
  name: string;
}

export const DEMO_PASSWORD = "boutique-demo";

export const DEMO_ACCOUNTS: readonly DemoAccount[] = [
  { id: "acct_dana", email: "dana@boutique.test", name: "Dana Morel" },
  { id: "acct_leo", email: "leo@boutique.test", name: "Léo Garnier" },
];

// Hashed once at load with a low cost: a demo shop, but never a plaintext comparison.
const PASSWORD_HASH = bcrypt.hashSync(DEMO_PASSWORD, 8);

export function accountById(id: string): DemoAccount | undefined {
  return DEMO_ACCOUNTS.find((a) => a.id === id);
}

export function accountByEmail(email: string): DemoAccount | undefined {
  const wanted = email.trim().toLowerCase();
  return DEMO_ACCOUNTS.find((a) => a.email === wanted);
}

/** The account whose e-mail and password these are, or null (one answer for both mistakes). */
export function checkCredentials(email: string, password: string): DemoAccount | null {
  const account = accountByEmail(email);
  // Compare even for an unknown e-mail, so the answer takes the same time.
  const ok = bcrypt.compareSync(password, PASSWORD_HASH);
  return account && ok ? account : null;
}
