"use client";

import { revokeSessionsEndpoint } from "@/lib/auth/api";
import { call } from "@/lib/client/call";

// The signed-in person's own account; nothing here is cached, so no query keys.

/** Ends every session of the signed-in person, this one included. */
export function endAllSessions() {
  return call(revokeSessionsEndpoint).then((r) => r.data);
}
