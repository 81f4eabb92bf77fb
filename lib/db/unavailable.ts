// Whether an error says the database could not be reached or dropped the
// connection (a restart, a failover, a full pool), rather than refusing a
// statement: the request may be sent again as it is once it is back. Errors
// come from Prisma (its codes for the driver adapter's kinds), from pg
// directly (the statements on the driver, lib/db/driver.ts) and from Node's
// sockets under either.

/** Prisma's codes for a database it cannot reach (P1001), a timeout, a closed connection, a full server. */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2037"]);

/** Node's socket errors, and PostgreSQL's shutdown (57P01–57P03) and connection (08…) SQLSTATEs. */
const DRIVER_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "57P01", "57P02", "57P03"]);

/** The driver adapter's kinds of the same (a raw query's error carries them, not Prisma's code). */
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);

/** pg's own errors for a connection that went away, which carry no code. */
const DRIVER_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|Connection terminated unexpectedly)/;

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== "object" || error === null || depth > 3) return false;
  const { code, kind, message, cause, meta } = error as {
    code?: unknown;
    kind?: unknown;
    message?: unknown;
    cause?: unknown;
    meta?: { driverAdapterError?: { cause?: unknown } };
  };
  if (typeof code === "string" && (PRISMA_CODES.has(code) || DRIVER_CODES.has(code) || code.startsWith("08")))
    return true;
  if (typeof kind === "string" && ADAPTER_KINDS.has(kind)) return true;
  if (typeof message === "string" && DRIVER_MESSAGES.test(message)) return true;
  return isDatabaseUnavailable(meta?.driverAdapterError?.cause, depth + 1) || isDatabaseUnavailable(cause, depth + 1);
}
