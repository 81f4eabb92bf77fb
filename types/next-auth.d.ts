import type { Role } from "@/lib/auth/scopes";

declare module "next-auth" {
  interface Session {
    member?: { id: string; organizationId: string; role: Role };
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    /** The server-side session row this cookie names (lib/auth/sessions.ts). */
    sessionId?: string;
    memberId?: string;
    organizationId?: string;
    role?: Role;
  }
}
