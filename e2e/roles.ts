export const roles = ["owner", "admin", "dev", "approver", "viewer"] as const;
export type DemoRole = (typeof roles)[number];
// Per stack port, so parallel runs in one checkout keep their own sessions.
export const storageState = (role: DemoRole) => `test-results/.auth/${process.env.STACK_PORT ?? 3210}/${role}.json`;
