import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { db } from "@/lib/db";
import { authSecret } from "./secret";
import { verifyPassword } from "./passwords";
import { Role } from "./scopes";

// next-auth v4, credentials only, JWT sessions carrying member, organization and role.
export const authOptions: NextAuthOptions = {
  secret: authSecret(),
  session: { strategy: "jwt", maxAge: 12 * 60 * 60 },
  pages: { signIn: "/connexion" },
  providers: [
    CredentialsProvider({
      name: "Adresse e-mail",
      credentials: { email: { label: "E-mail", type: "email" }, password: { label: "Mot de passe", type: "password" } },
      async authorize(credentials) {
        const email = credentials?.email?.trim().toLowerCase();
        const password = credentials?.password;
        if (!email || !password) return null;
        const member = await db.member.findUnique({ where: { email } });
        if (!member || !(await verifyPassword(password, member.passwordHash))) return null;
        return { id: member.id, email: member.email, name: member.name };
      },
    }),
  ],
  callbacks: {
    async jwt({ token, user }) {
      if (user) {
        const member = await db.member.findUniqueOrThrow({ where: { id: user.id } });
        token.memberId = member.id;
        token.organizationId = member.organizationId;
        token.role = Role.parse(member.role);
      }
      return token;
    },
    async session({ session, token }) {
      if (token.memberId && token.organizationId && token.role) {
        session.member = { id: token.memberId, organizationId: token.organizationId, role: token.role };
      }
      return session;
    },
  },
};
