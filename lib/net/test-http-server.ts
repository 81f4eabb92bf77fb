import http from "node:http";
import type { AddressInfo } from "node:net";

// A real HTTP peer on 127.0.0.1 for tests of outbound requests.

export interface TestServer {
  /** Base URL without trailing slash, e.g. http://127.0.0.1:41234 */
  origin: string;
  close: () => Promise<void>;
}

export async function startTestServer(handler: http.RequestListener): Promise<TestServer> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        // Some tests leave requests hanging on purpose (timeouts); drop them.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
