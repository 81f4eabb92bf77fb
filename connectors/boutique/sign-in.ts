import { DEMO_PASSWORD } from "./accounts";

// Playing the person at Boutique's pages, for what has no person in front of
// it: the tests, and `npm start`'s demo seed, which connects Acme's owner to
// list Boutique's tools. A browser reduced to cookies and manual redirects.

/** A browser reduced to what the flow needs: cookies and manual redirects. */
export class Browser {
  private readonly cookies = new Map<string, string>();

  private remember(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => {
        const [k, v] = a.trim().split("=");
        return (
          (k.toLowerCase() === "max-age" && Number(v) <= 0) ||
          (k.toLowerCase() === "expires" && Date.parse(v) < Date.now())
        );
      });
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    const res = await fetch(url, { ...init, headers, redirect: "manual" });
    this.remember(res);
    return res;
  }

  /** Follows redirects until a page answers, or until the next hop leaves for `stopAt` (returned, not fetched). */
  async follow(url: string | URL, stopAt: string, init: RequestInit = {}): Promise<{ res?: Response; url: URL }> {
    let current = new URL(url);
    let res = await this.request(current, init);
    for (let hops = 0; hops < 10; hops++) {
      const location = res.headers.get("location");
      if (res.status < 300 || res.status >= 400 || !location) return { res, url: current };
      current = new URL(location, current);
      if (current.href.startsWith(stopAt)) return { url: current };
      res = await this.request(current);
    }
    throw new Error("too many redirects");
  }

  async submit(page: URL, action: string, fields: Record<string, string>, stopAt: string) {
    return this.follow(new URL(action, page), stopAt, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

export const formAction = (html: string, suffix: string): string => {
  const m = new RegExp(`action="([^"]*/${suffix})"`).exec(html);
  if (!m) throw new Error(`no form ending in /${suffix} on the page`);
  return m[1];
};

/**
 * From an authorization URL: Boutique's login form with these credentials, then « Autoriser ». Returns the
 * URL the browser is sent back to (`stopAt`, with code, state and iss, or an error), never fetched.
 */
export async function consentAt(
  authorizationUrl: string | URL,
  email: string,
  stopAt: string,
  password = DEMO_PASSWORD,
  browser = new Browser(),
): Promise<URL> {
  const login = await browser.follow(authorizationUrl, stopAt);
  if (!login.res) return login.url;
  const loginHtml = await login.res.text();
  if (!loginHtml.includes("Adresse e-mail") || !loginHtml.includes("Se connecter"))
    throw new Error(`not the login page (${login.res.status}): ${loginHtml.slice(0, 300)}`);
  const afterLogin = await browser.submit(login.url, formAction(loginHtml, "login"), { email, password }, stopAt);
  if (!afterLogin.res) return afterLogin.url;
  const consentHtml = await afterLogin.res.text();
  if (!consentHtml.includes("Autoriser"))
    throw new Error(`not the consent page (${afterLogin.res.status}): ${consentHtml.slice(0, 300)}`);
  const done = await browser.submit(afterLogin.url, formAction(consentHtml, "confirm"), {}, stopAt);
  if (done.res)
    throw new Error(`the flow ended on a page (${done.res.status}): ${(await done.res.text()).slice(0, 300)}`);
  return done.url;
}
