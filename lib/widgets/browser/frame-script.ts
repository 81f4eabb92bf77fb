// The bubble's own page, inside the frame Guichet serves. It takes orders only
// from its parent page, and only when that page's origin is one the widget
// lists (the frame-ancestors header already refused every other parent). Model
// output is untrusted: it is rendered with DOM text nodes, never as HTML — a
// small Markdown subset (paragraphs, **bold**, `code`, [links](https://…)),
// links only to http(s)/mailto, opened with rel="noopener noreferrer nofollow".

function guichetWidgetFrame(): void {
  const body = document.body;
  const allowed: string[] = JSON.parse(body.getAttribute("data-origins") || "[]");
  // The console's « Aperçu » frames the bubble from Guichet's own origin (frame-ancestors 'self' in preview mode).
  if (body.getAttribute("data-preview") === "1") allowed.push(window.location.origin);
  let parentOrigin: string | null = null;
  const english = body.getAttribute("data-language") === "en";
  const t = (fr: string, en: string) => (english ? en : fr);

  const log = document.getElementById("log")!;
  const form = document.getElementById("composer") as HTMLFormElement;
  const input = document.getElementById("input") as HTMLTextAreaElement;
  const status = document.getElementById("status")!;
  const starters = document.getElementById("starters")!;
  const title = document.getElementById("title")!;
  const greeting = document.getElementById("greeting")!;
  const answers = new Map<string, { element: HTMLElement; text: string; waiting?: HTMLElement }>();
  let pending: HTMLElement | null = null;

  function toParent(message: unknown) {
    if (parentOrigin) window.parent.postMessage(message, parentOrigin);
  }

  /** Inline Markdown as DOM nodes: **bold**, `code`, [text](url); everything else is text. */
  function inline(target: HTMLElement, text: string) {
    const pattern = /\*\*([^*]+)\*\*|`([^`]+)`|\[([^\]]+)\]\(([^)\s]+)\)/g;
    let last = 0;
    let match: RegExpExecArray | null;
    while ((match = pattern.exec(text))) {
      if (match.index > last) target.appendChild(document.createTextNode(text.slice(last, match.index)));
      if (match[1] !== undefined) {
        const strong = document.createElement("strong");
        strong.textContent = match[1];
        target.appendChild(strong);
      } else if (match[2] !== undefined) {
        const code = document.createElement("code");
        code.textContent = match[2];
        target.appendChild(code);
      } else {
        let url: URL | null = null;
        try {
          url = new URL(match[4]);
        } catch {
          url = null;
        }
        if (url && (url.protocol === "https:" || url.protocol === "http:" || url.protocol === "mailto:")) {
          const link = document.createElement("a");
          link.href = url.href;
          link.textContent = match[3];
          link.target = "_blank";
          link.rel = "noopener noreferrer nofollow";
          target.appendChild(link);
        } else target.appendChild(document.createTextNode(match[0]));
      }
      last = pattern.lastIndex;
    }
    if (last < text.length) target.appendChild(document.createTextNode(text.slice(last)));
  }

  function render(element: HTMLElement, text: string) {
    element.replaceChildren();
    text.split(/\n{2,}/).forEach((paragraph) => {
      const p = document.createElement("p");
      paragraph.split("\n").forEach((line, index) => {
        if (index > 0) p.appendChild(document.createElement("br"));
        inline(p, line);
      });
      element.appendChild(p);
    });
  }

  function bubble(kind: "visitor" | "assistant" | "notice", text: string): HTMLElement {
    const element = document.createElement("div");
    element.className = "bubble " + kind;
    if (kind === "assistant") render(element, text);
    else element.textContent = text;
    log.appendChild(element);
    log.scrollTop = log.scrollHeight;
    return element;
  }

  function setStatus(text: string) {
    status.textContent = text;
  }

  function answerFor(message: string | null): { element: HTMLElement; text: string; waiting?: HTMLElement } {
    const key = message || "pending";
    let entry = answers.get(key);
    if (!entry) {
      entry = { element: pending || bubble("assistant", ""), text: "" };
      pending = null;
      answers.set(key, entry);
    }
    return entry;
  }

  function onEvent(message: string | null, event: string, data: Record<string, unknown>) {
    if (event === "message") {
      setStatus(t("L'assistant écrit…", "The assistant is typing…"));
      return;
    }
    const entry = answerFor(message);
    if (event === "delta") {
      entry.text += String(data.text || "");
      render(entry.element, entry.text);
    } else if (event === "progress")
      setStatus(t("L'assistant consulte vos informations…", "The assistant is looking…"));
    else if (event === "waiting") {
      // What the model said so far stays; the wait is said below it.
      entry.waiting = entry.waiting || bubble("notice", String(data.message));
      setStatus("");
    } else if (event === "done") {
      entry.text = String(data.text || "");
      render(entry.element, entry.text);
      setStatus("");
    } else if (event === "failed") {
      render(entry.element, String(data.message));
      setStatus("");
    } else if (event === "refused") {
      showRefusal(entry, data as { message?: string; reason?: string | null; text?: string | null });
      setStatus("");
    }
    log.scrollTop = log.scrollHeight;
  }

  /** A refused write in plain words; the approver's reason and the agent's reply only when shareable. */
  function showRefusal(
    entry: { element: HTMLElement; text: string; waiting?: HTMLElement },
    refusal: { message?: string; reason?: string | null; text?: string | null },
  ) {
    if (entry.waiting) {
      entry.waiting.remove();
      entry.waiting = undefined;
    }
    const parts = [
      String(refusal.message || t("Votre demande n'a pas été acceptée.", "Your request was not accepted.")),
    ];
    if (refusal.reason) parts.push(t("Motif : ", "Reason: ") + refusal.reason);
    if (refusal.text) parts.push(refusal.text);
    render(entry.element, (entry.text = parts.join("\n\n")));
  }

  type Turn = {
    id: string;
    content: string;
    status: string;
    answer: string | null;
    refusal?: { message: string; reason: string | null } | null;
  };

  function showTurns(turns: Turn[]) {
    log.replaceChildren();
    answers.clear();
    turns.forEach((turn) => {
      bubble("visitor", turn.content);
      const element = bubble("assistant", "");
      answers.set(turn.id, { element, text: turn.answer || "" });
      showTurn(turn.id, turn);
    });
    starters.hidden = turns.length > 0;
  }

  function showTurn(id: string, turn: Omit<Turn, "id" | "content">) {
    const entry = answerFor(id);
    if (turn.status !== "waiting_approval" && entry.waiting) {
      entry.waiting.remove();
      entry.waiting = undefined;
    }
    if (turn.status === "answered") render(entry.element, (entry.text = turn.answer || ""));
    else if (turn.status === "refused") showRefusal(entry, { ...turn.refusal, text: turn.answer });
    else if (turn.status === "waiting_approval")
      entry.waiting =
        entry.waiting ||
        bubble("notice", t("Votre demande attend la validation d'un conseiller.", "Your request awaits approval."));
    else if (turn.status === "failed")
      render(entry.element, t("L'assistant n'a pas pu répondre.", "The assistant could not answer."));
    else render(entry.element, t("Réponse en cours…", "Answer in progress…"));
  }

  function send(text: string) {
    const trimmed = text.trim();
    if (!trimmed) return;
    bubble("visitor", trimmed);
    pending = bubble("assistant", "");
    starters.hidden = true;
    setStatus(t("Envoi…", "Sending…"));
    toParent({ type: "send", text: trimmed });
  }

  window.addEventListener("message", (event) => {
    if (event.source !== window.parent || !allowed.includes(event.origin)) return;
    parentOrigin = event.origin;
    const message = event.data || {};
    if (message.type === "config") {
      title.textContent = message.appearance.title;
      greeting.textContent = message.appearance.greeting;
      document.documentElement.style.setProperty("--accent", message.appearance.accent_color);
      starters.replaceChildren();
      (message.appearance.starter_prompts as string[]).forEach((prompt) => {
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = prompt;
        button.addEventListener("click", () => send(prompt));
        starters.appendChild(button);
      });
    } else if (message.type === "history") showTurns(message.turns);
    else if (message.type === "event") onEvent(message.message, message.event, message.data || {});
    else if (message.type === "answer") showTurn(message.message, message.turn);
    else if (message.type === "reconnecting") setStatus(t("Connexion perdue, reconnexion…", "Reconnecting…"));
    else if (message.type === "focus") input.focus();
    else if (message.type === "refused") {
      if (pending) pending.remove();
      pending = null;
      const wait = message.retry_after ? Math.ceil(Number(message.retry_after) / 60) : 0;
      setStatus(
        message.code === "rate_limited"
          ? t(
              "Beaucoup de messages d'un coup : vous pourrez écrire à nouveau dans " + wait + " min.",
              "Too many messages: you can write again in " + wait + " min.",
            )
          : t("Le message n'a pas pu être envoyé. Réessayez.", "The message could not be sent. Try again."),
      );
    }
  });

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    send(input.value);
    input.value = "";
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  document.getElementById("new")!.addEventListener("click", () => toParent({ type: "new" }));
  document.getElementById("close")!.addEventListener("click", () => toParent({ type: "close" }));
  // The parent's origin is not known yet: say hello to each listed origin, only the real parent can hear it.
  allowed.forEach((origin) => window.parent.postMessage({ type: "ready" }, origin));
}

export const FRAME_JS = `(${guichetWidgetFrame.toString()})();\n`;
