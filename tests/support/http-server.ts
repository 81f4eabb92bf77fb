import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { classifyAddress } from "@/lib/net/ssrf";

// A real HTTP peer for tests of outbound requests, on 127.0.0.1 unless told
// otherwise.

export interface TestServer {
  /** Base URL without trailing slash, e.g. http://127.0.0.1:41234 */
  origin: string;
  close: () => Promise<void>;
}

export async function startTestServer(handler: http.RequestListener, host = "127.0.0.1"): Promise<TestServer> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        // Some tests leave requests hanging on purpose (timeouts); drop them.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An address of this machine on a private network (10/8, 172.16/12, fc00::/7…), if it has one. */
export function privateInterfaceAddress(): string | null {
  for (const entries of Object.values(os.networkInterfaces())) {
    for (const entry of entries ?? []) {
      if (!entry.internal && classifyAddress(entry.address) === "private") return entry.address;
    }
  }
  return null;
}
