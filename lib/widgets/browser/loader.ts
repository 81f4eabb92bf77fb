// The loader a customer's page includes (`<script src=…/widget.js data-key=pk_…>`).
// It runs on the customer's page, so every call it makes carries that page's true
// `Origin`: it opens the visitor's session, creates conversations and streams
// answers, and hands what the visitor should see to the bubble's frame, which
// Guichet serves (and only the widget's origins may frame). The frame renders;
// the page's script never touches model output. No framework, no import: this
// function's own text is the file (`LOADER_JS`).

/** Bumped when the loader's protocol with the frame or the API changes. */
export const LOADER_VERSION = "1";

function guichetWidgetLoader(): void {
  const script = document.currentScript as HTMLScriptElement | null;
  if (!script) return;
  const key = script.getAttribute("data-key") || "";
  // Set only by the console's « Aperçu » page, on Guichet's own origin (lib/widgets/preview.ts).
  const previewToken = script.getAttribute("data-preview-token");
  const base = new URL(script.src).origin;
  const api = base + "/widget/v1";
  const settings = ((window as unknown as Record<string, unknown>).GuichetSettings || {}) as {
    getUserToken?: () => string | Promise<string>;
  };
  const storage = (() => {
    try {
      return window.localStorage;
    } catch {
      return null;
    }
  })();
  const prefix = "guichet:" + (previewToken ? "preview:" : "") + key + ":";
  const stored = (name: string) => (storage ? storage.getItem(prefix + name) : null);
  const store = (name: string, value: string | null) => {
    if (!storage) return;
    if (value === null) storage.removeItem(prefix + name);
    else storage.setItem(prefix + name, value);
  };

  let token: string | null = null;
  let conversation: string | null = stored("conversation");
  let frame: HTMLIFrameElement | null = null;
  let frameReady = false;
  let opened = false;
  const outbox: unknown[] = [];

  const root = document.createElement("div");
  root.setAttribute("data-guichet-widget", "");
  root.style.cssText = "position:fixed;bottom:20px;right:20px;z-index:2147483000;font-family:system-ui,sans-serif";
  const launcher = document.createElement("button");
  launcher.type = "button";
  launcher.setAttribute("aria-label", "Ouvrir l'assistant");
  launcher.setAttribute("aria-expanded", "false");
  launcher.textContent = "💬";
  launcher.style.cssText =
    "width:56px;height:56px;border-radius:50%;border:0;background:#1d4ed8;color:#fff;font-size:24px;cursor:pointer;box-shadow:0 4px 12px rgba(0,0,0,.25)";
  const notice = document.createElement("div");
  notice.setAttribute("role", "status");
  notice.style.cssText =
    "display:none;position:absolute;bottom:68px;right:0;width:260px;padding:12px;background:#fff;color:#111;border:1px solid #ccc;border-radius:8px";
  root.appendChild(notice);
  root.appendChild(launcher);

  function post(message: unknown) {
    if (frame && frameReady && frame.contentWindow) frame.contentWindow.postMessage(message, base);
    else outbox.push(message);
  }

  function showNotice(text: string) {
    notice.textContent = text;
    notice.style.display = opened ? "block" : "none";
  }

  async function userToken(): Promise<string | undefined> {
    if (typeof settings.getUserToken === "function") return await settings.getUserToken();
    return script!.getAttribute("data-user-token") || undefined;
  }

  async function call(method: string, path: string, body?: unknown, extra?: Record<string, string>) {
    const headers: Record<string, string> = Object.assign({}, extra);
    if (token) headers.authorization = "Bearer " + token;
    if (body !== undefined) headers["content-type"] = "application/json";
    return fetch(api + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  async function refusal(response: Response): Promise<{ code: string; retry_after?: number }> {
    try {
      const body = await response.json();
      return { code: body.error.code, retry_after: body.error.reason && body.error.reason.retry_after };
    } catch {
      return { code: "internal_error" };
    }
  }

  async function openSession(): Promise<boolean> {
    const body: Record<string, unknown> = { public_key: key };
    const user = previewToken ? undefined : await userToken();
    if (previewToken) body.preview_token = previewToken;
    else if (user) body.user_token = user;
    else if (stored("visitor")) body.visitor = stored("visitor");
    let response: Response;
    try {
      response = await call("POST", "/sessions", body);
    } catch {
      // Guichet answers CORS to the widget's origins only, so a refused page cannot read the refusal:
      // if Guichet is reachable (an opaque request goes through), the page's origin is what was refused.
      const reachable = await fetch(base + "/api/health", { mode: "no-cors" }).then(
        () => true,
        () => false,
      );
      showNotice(
        reachable
          ? "Ce site n'est pas autorisé à utiliser cet assistant."
          : "L'assistant est injoignable pour le moment.",
      );
      return false;
    }
    if (!response.ok) {
      const { code } = await refusal(response);
      showNotice(
        code === "widget_origin_not_allowed"
          ? "Ce site n'est pas autorisé à utiliser cet assistant."
          : "L'assistant est indisponible pour le moment.",
      );
      return false;
    }
    const data = (await response.json()).data;
    token = data.visitor_token;
    if (!data.visitor.verified) store("visitor", data.visitor.id);
    const accent = data.widget.appearance.accent_color;
    launcher.style.background = accent;
    if (data.widget.appearance.position === "left") {
      root.style.right = "";
      root.style.left = "20px";
    }
    launcher.setAttribute("aria-label", data.widget.appearance.title);
    ensureFrame();
    post({ type: "config", appearance: data.widget.appearance });
    if (conversation) await restore();
    return true;
  }

  async function restore() {
    const response = await call("GET", "/conversations/" + encodeURIComponent(conversation!));
    if (!response.ok) {
      conversation = null;
      store("conversation", null);
      return;
    }
    post({ type: "history", turns: (await response.json()).data.turns });
  }

  function ensureFrame() {
    if (frame) return;
    frame = document.createElement("iframe");
    frame.src = base + "/widget/frame?key=" + encodeURIComponent(key) + (previewToken ? "&preview=1" : "");
    frame.title = "Assistant";
    frame.style.cssText =
      "display:none;position:absolute;bottom:68px;right:0;width:370px;height:560px;max-height:80vh;border:0;border-radius:12px;box-shadow:0 8px 24px rgba(0,0,0,.25);background:#fff";
    root.insertBefore(frame, launcher);
  }

  async function stream(response: Response, messageId: { id: string | null }, lastId: { id: number }) {
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return;
      buffer += decoder.decode(chunk.value, { stream: true });
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf("\n\n");
        const fields: Record<string, string> = {};
        block.split("\n").forEach((line) => {
          const at = line.indexOf(":");
          if (at > 0) fields[line.slice(0, at)] = line.slice(at + 2);
        });
        if (!fields.event) continue;
        const data = JSON.parse(fields.data || "null");
        if (fields.event === "message") messageId.id = data.id;
        else lastId.id = Math.max(lastId.id, Number(fields.id) || 0);
        post({ type: "event", message: messageId.id, event: fields.event, data });
        if (fields.event === "waiting") watch(messageId.id!);
      }
    }
  }

  /** A write waits for an advisor: look again now and then until the answer is there. */
  function watch(messageId: string) {
    const conversationId = conversation;
    const look = async () => {
      if (conversation !== conversationId) return;
      const response = await call("GET", "/conversations/" + encodeURIComponent(conversationId!));
      if (response.ok) {
        const turn = (await response.json()).data.turns.find((t: { id: string }) => t.id === messageId);
        if (turn && turn.status !== "waiting_approval" && turn.status !== "in_progress")
          return post({ type: "answer", message: messageId, turn });
      }
      setTimeout(look, 3000);
    };
    setTimeout(look, 3000);
  }

  async function send(text: string) {
    if (!token && !(await openSession())) return;
    if (!conversation) {
      const created = await call("POST", "/conversations", {});
      if (!created.ok) return post({ type: "refused", ...(await refusal(created)) });
      conversation = (await created.json()).data.id;
      store("conversation", conversation);
    }
    const messageId = { id: null as string | null };
    const lastId = { id: 0 };
    let response: Response;
    try {
      response = await call("POST", "/conversations/" + encodeURIComponent(conversation!) + "/messages", {
        content: text,
      });
    } catch {
      return post({ type: "refused", code: "network" });
    }
    if (!response.ok) return post({ type: "refused", ...(await refusal(response)) });
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        await stream(response, messageId, lastId);
        return;
      } catch {
        // A network cut mid-answer: re-attach after the last event received, so nothing shows twice.
        post({ type: "reconnecting" });
        await new Promise((resolve) => setTimeout(resolve, Math.min(500 * (attempt + 1), 4000)));
        try {
          response = await call(
            "GET",
            "/conversations/" + encodeURIComponent(conversation!) + "/messages/" + messageId.id + "/events",
            undefined,
            { "last-event-id": String(lastId.id) },
          );
        } catch {
          continue;
        }
      }
    }
  }

  async function restart() {
    conversation = null;
    store("conversation", null);
    post({ type: "history", turns: [] });
  }

  window.addEventListener("message", (event) => {
    if (!frame || event.source !== frame.contentWindow || event.origin !== base) return;
    const message = event.data || {};
    if (message.type === "ready") {
      frameReady = true;
      outbox.splice(0).forEach(post);
    } else if (message.type === "send" && typeof message.text === "string") void send(message.text);
    else if (message.type === "new") void restart();
    else if (message.type === "close") setOpen(false);
  });

  function setOpen(value: boolean) {
    opened = value;
    launcher.setAttribute("aria-expanded", String(value));
    if (frame) frame.style.display = value ? "block" : "none";
    notice.style.display = value && notice.textContent ? "block" : "none";
    if (value && frame && frameReady) post({ type: "focus" });
  }
  launcher.addEventListener("click", () => setOpen(!opened));

  (window as unknown as Record<string, unknown>).Guichet = {
    version: "1",
    open: () => setOpen(true),
    close: () => setOpen(false),
    toggle: () => setOpen(!opened),
  };
  const mount = () => {
    document.body.appendChild(root);
    void openSession();
  };
  if (document.body) mount();
  else document.addEventListener("DOMContentLoaded", mount);
}

/** The text of /widget.js: the function above, called at once. */
export const LOADER_JS = `/* Guichet widget loader v${LOADER_VERSION} */\n(${guichetWidgetLoader.toString()})();\n`;
