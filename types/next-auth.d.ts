import type { Role } from "@/lib/auth/scopes";

declare module "next-auth" {
  interface Session {
    member?: { id: string; organizationId: string; role: Role };
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    memberId?: string;
    organizationId?: string;
    role?: Role;
  }
}
