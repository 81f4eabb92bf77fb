import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

// A local HTTP receiver for webhook deliveries. It answers each request as its
// plan says (a status, or "hang": never answer, so the sender's time limit
// ends the attempt), then 200. Tests verify signatures with the
// `standardwebhooks` verifier, as a customer's receiver would.

export interface ReceivedHook {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  payload: any;
  answered: number | "hang";
}

export interface Receiver {
  /** http://hooks.test:PORT/hook: a public-looking test name (GUICHET_TEST_HOSTS maps it to 127.0.0.1). */
  url: string;
  /** http://127.0.0.1:PORT/hook: a loopback URL, refused unless allowlisted. */
  loopbackUrl: string;
  received: ReceivedHook[];
  /** Answers for the next requests, consumed in order. */
  plan: Array<number | "hang">;
  /** Verifies one request with a secret; throws WebhookVerificationError when it does not match. */
  verify(hook: ReceivedHook, secret: string): unknown;
  /** Requests received for one webhook-id. */
  attemptsOf(id: string): ReceivedHook[];
  close(): Promise<void>;
}

export async function startReceiver(name = "hooks"): Promise<Receiver> {
  const received: ReceivedHook[] = [];
  const plan: Array<number | "hang"> = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      const answer = plan.length > 0 ? plan.shift()! : 200;
      let payload: unknown = null;
      try {
        payload = JSON.parse(body);
      } catch {
        // kept as text
      }
      received.push({
        id: String(request.headers["webhook-id"] ?? ""),
        timestamp: String(request.headers["webhook-timestamp"] ?? ""),
        signature: String(request.headers["webhook-signature"] ?? ""),
        body,
        payload,
        answered: answer,
      });
      if (answer === "hang") {
        hanging.add(response);
        return;
      }
      response.writeHead(answer, { "content-type": "text/plain" }).end("noted");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${name}.test:${port}/hook`,
    loopbackUrl: `http://127.0.0.1:${port}/hook`,
    received,
    plan,
    verify: (hook, secret) =>
      new Webhook(secret).verify(hook.body, {
        "webhook-id": hook.id,
        "webhook-timestamp": hook.timestamp,
        "webhook-signature": hook.signature,
      }),
    attemptsOf: (id) => received.filter((hook) => hook.id === id),
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
