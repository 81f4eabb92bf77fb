import bcrypt from "bcryptjs";

const COST = 10;

/**
 * A hash of a random password nobody knows, at the same cost as members' hashes:
 * a sign-in with an unknown e-mail compares against it, so it takes as long as
 * one with a wrong password and the answer time does not tell which e-mails exist.
 */
export const DUMMY_PASSWORD_HASH = "$2b$10$BTwjCwk/u66u1/RHkiPH5.SiAUMxJrvt36gUNbxdFO9j3u2XO7M.K";

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, COST);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}

/** One bcrypt compare whether or not the member exists; true only for an existing member's right password. */
export async function verifyMemberPassword(password: string, hash: string | undefined): Promise<boolean> {
  const matches = await bcrypt.compare(password, hash ?? DUMMY_PASSWORD_HASH);
  return hash !== undefined && matches;
}
