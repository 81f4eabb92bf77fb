// The harness's HTTP client: every call through HAProxy unless a base is
// given, bearer key or session cookie, and a typed answer. A network error
// or a 502/503 from the balancer (an instance died under the request) is an
// answer like any other: status 0 or 5xx, the caller decides what is safe
// to send again.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an API answer read field by field, as a client would; the invariants judge stored state, not these bodies
export type Body = any;

export interface Answer {
  status: number;
  body: Body;
}

export interface Caller {
  key?: string;
  cookie?: string;
}

export async function call(
  base: string,
  path: string,
  options: { method?: string; json?: unknown; as: Caller; timeoutMs?: number },
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.as.key) headers.authorization = `Bearer ${options.as.key}`;
  if (options.as.cookie) headers.cookie = options.as.cookie;
  if (options.json !== undefined) headers["content-type"] = "application/json";
  try {
    const response = await fetch(base + path, {
      method: options.method ?? (options.json !== undefined ? "POST" : "GET"),
      headers,
      body: options.json !== undefined ? JSON.stringify(options.json) : undefined,
      signal: AbortSignal.timeout(options.timeoutMs ?? 90_000),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // an HTML error page of the balancer
    }
    return { status: response.status, body };
  } catch {
    return { status: 0, body: null };
  }
}

/** A request that changes nothing, or whose repetition Guichet dedupes: sent again until it is answered. */
export async function callUntilAnswered(
  base: string,
  path: string,
  options: Parameters<typeof call>[2] & { attempts?: number },
): Promise<Answer> {
  let answer: Answer = { status: 0, body: null };
  for (let attempt = 0; attempt < (options.attempts ?? 40); attempt += 1) {
    answer = await call(base, path, options);
    if (answer.status !== 0 && answer.status < 500) return answer;
    await new Promise((resolve) => setTimeout(resolve, 250 + attempt * 100));
  }
  return answer;
}

/** Signs in through next-auth's credentials flow (what the console does) and answers the session cookie. */
export async function signIn(base: string, email: string, password = "guichet-demo"): Promise<Caller> {
  for (let attempt = 0; attempt < 10; attempt += 1) {
    try {
      const csrf = await fetch(`${base}/api/auth/csrf`);
      const { csrfToken } = (await csrf.json()) as { csrfToken: string };
      const cookies = csrf.headers.getSetCookie().map((c) => c.split(";")[0]);
      const response = await fetch(`${base}/api/auth/callback/credentials`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookies.join("; ") },
        body: new URLSearchParams({ csrfToken, email, password, json: "true" }).toString(),
      });
      await response.text();
      const session = response.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .find((c) => c.startsWith("next-auth.session-token="));
      if (session) return { cookie: session };
    } catch {
      // an instance went away under the sign-in: again
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`sign-in failed for ${email}`);
}
