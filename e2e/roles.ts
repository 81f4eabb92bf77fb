export const roles = ["owner", "admin", "dev", "approver", "viewer"] as const;
export type DemoRole = (typeof roles)[number];
export const storageState = (role: DemoRole) => `test-results/.auth/${role}.json`;
