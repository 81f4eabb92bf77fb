import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/options";

// next-auth's own routes: sign-in, sign-out, session, CSRF.
const handler = NextAuth(authOptions);
export { handler as GET, handler as POST };
