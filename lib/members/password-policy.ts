// What a console password must be: pure, so the accept page and the password
// form check it as the server does. bcrypt reads at most 72 bytes: a longer
// password would be silently cut, so it is refused instead.

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_BYTES = 72;

export type PasswordProblem = "too_short" | "too_long" | "common" | "repetitive" | "contains_identity";

export const passwordProblemLabels: Record<PasswordProblem, string> = {
  too_short: `Au moins ${PASSWORD_MIN_LENGTH} caractères.`,
  too_long: `Au plus ${PASSWORD_MAX_BYTES} octets.`,
  common: "Ce mot de passe figure parmi les plus utilisés : choisissez-en un autre.",
  repetitive: "Évitez les répétitions et les suites (aaaa, 1234, azerty).",
  contains_identity: "Le mot de passe ne doit pas contenir votre adresse e-mail ni le nom de l'organisation.",
};

export const passwordProblemMessages: Record<PasswordProblem, string> = {
  too_short: `Use at least ${PASSWORD_MIN_LENGTH} characters.`,
  too_long: `Use at most ${PASSWORD_MAX_BYTES} bytes (bcrypt ignores the rest).`,
  common: "This password is among the most used ones: choose another.",
  repetitive: "Avoid repeated characters and sequences (aaaa, 1234, qwerty).",
  contains_identity: "The password must not contain your e-mail address or the organization's name.",
};

// The most used passwords and their usual bases, as they appear in every breach
// corpus; a password that is one of them with digits or symbols around is refused too.
const COMMON_BASES = [
  "password",
  "motdepasse",
  "passw0rd",
  "azerty",
  "qwerty",
  "qwertz",
  "123456",
  "654321",
  "111111",
  "000000",
  "abc123",
  "letmein",
  "welcome",
  "bienvenue",
  "admin",
  "administrator",
  "iloveyou",
  "jetaime",
  "monkey",
  "dragon",
  "football",
  "baseball",
  "soleil",
  "doudou",
  "chouchou",
  "loulou",
  "marseille",
  "sunshine",
  "princess",
  "master",
  "shadow",
  "superman",
  "batman",
  "trustno1",
  "changeme",
  "secret",
  "guichet",
  "default",
  "login",
  "starwars",
  "hello",
  "freedom",
  "whatever",
  "nicolas",
  "camille",
  "julien",
];
const SEQUENCES = ["abcdefghijklmnopqrstuvwxyz", "0123456789", "azertyuiop", "qwertyuiop", "qsdfghjklm", "asdfghjkl"];

function core(password: string): string {
  return password
    .toLowerCase()
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9]/g, "")
    .replace(/^\d+|\d+$/g, "");
}

function isRepetitive(password: string): boolean {
  const lower = password.toLowerCase();
  if (new Set(lower).size <= 3) return true;
  // Made only of one short unit repeated (abcabcabcabc, 12121212…).
  for (let unit = 1; unit <= 4; unit++) {
    if (lower.length % unit === 0 && lower.slice(0, unit).repeat(lower.length / unit) === lower) return true;
  }
  return SEQUENCES.some((sequence) => {
    for (let start = 0; start + 8 <= sequence.length; start++) {
      const run = sequence.slice(start, start + 8);
      if (lower.includes(run) || lower.includes([...run].reverse().join(""))) return true;
    }
    return false;
  });
}

/** The first problem of a password, or null when it is acceptable. */
export function passwordProblem(
  password: string,
  identity: { email?: string; organization?: string } = {},
): PasswordProblem | null {
  if (password.length < PASSWORD_MIN_LENGTH) return "too_short";
  if (new TextEncoder().encode(password).length > PASSWORD_MAX_BYTES) return "too_long";
  const base = core(password);
  if (
    COMMON_BASES.some(
      (common) =>
        base === common || base === common.repeat(2) || (base.length <= common.length + 2 && base.startsWith(common)),
    )
  )
    return "common";
  if (isRepetitive(password)) return "repetitive";
  const lower = password.toLowerCase();
  const local = identity.email?.split("@")[0]?.toLowerCase() ?? "";
  const organization = identity.organization?.toLowerCase().replace(/\s+/g, "") ?? "";
  if (
    (local.length >= 4 && lower.includes(local)) ||
    (organization.length >= 4 && lower.replace(/\s+/g, "").includes(organization))
  )
    return "contains_identity";
  return null;
}
