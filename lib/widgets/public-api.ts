import "server-only";
import { z } from "zod";
import { requestHost } from "@/lib/auth/console-origin";
import { readJsonBody } from "@/lib/http/body";
import { parseInput } from "@/lib/http/validation";
import { createConversation, listVisitorConversations, VisitorMessageBody } from "./conversations";
import {
  assertAvailable,
  assertOriginAllowed,
  assertSessionAvailable,
  requestOrigin,
  takeAddressSlot,
  takeConversationSlot,
  visitorSession,
  widgetByPublicKey,
  type PublicContext,
} from "./public";
import { appearanceOf } from "./service";
import { previewVisitor } from "./preview";
import { anonymousVisitor, issueVisitorToken, verifyUserToken, visitorTokenTtl } from "./visitor";

// The operations of the public surface that answer JSON, in the order every
// request goes: Origin, then the client address's share, then the rest.

export const SessionBody = z.strictObject({
  public_key: z.string().min(1).max(100),
  user_token: z.string().min(1).max(4096).optional(),
  /** An anonymous visitor's id kept in the bubble's storage, from an earlier session of this widget. */
  visitor: z
    .string()
    .regex(/^anon:[A-Za-z0-9_-]{16,64}$/)
    .optional(),
  /** From the console's « Aperçu » page only (lib/widgets/preview.ts). */
  preview_token: z.string().min(20).max(4096).optional(),
});

export async function openSession(request: Request, context: PublicContext) {
  const origin = requestOrigin(request);
  const body = parseInput(SessionBody, await readJsonBody(request));
  const widget = await widgetByPublicKey(body.public_key);
  const preview = body.preview_token
    ? await previewVisitor(widget, body.preview_token, origin, requestHost(request))
    : null;
  if (preview) context.allowedOrigin = origin;
  else assertOriginAllowed(widget, origin, context);
  await takeAddressSlot(request);
  await assertAvailable(widget);
  const visitor = preview
    ? preview
    : widget.identity === "verified"
      ? await verifyUserToken(widget, body.user_token)
      : body.visitor
        ? { id: body.visitor, name: null, verified: false }
        : anonymousVisitor();
  const appearance = appearanceOf(widget);
  return {
    status: 201,
    body: {
      data: {
        visitor_token: await issueVisitorToken(widget, visitor, origin),
        expires_in: visitorTokenTtl(visitor),
        visitor: { id: visitor.id, name: visitor.name, verified: visitor.verified },
        widget: { id: widget.id, appearance },
      },
    },
  };
}

export async function newConversation(request: Request, context: PublicContext) {
  const session = await visitorSession(request, context);
  await takeAddressSlot(request);
  assertSessionAvailable(session);
  await takeConversationSlot(session.widget);
  const conversation = await createConversation(session.widget, session.visitor, session.origin);
  return { status: 201, body: { data: { id: conversation.id, created_at: conversation.createdAt.toISOString() } } };
}

export async function visitorConversations(request: Request, context: PublicContext) {
  const session = await visitorSession(request, context);
  await takeAddressSlot(request);
  return { body: { data: await listVisitorConversations(session.widget, session.visitor) } };
}

export async function messageBody(request: Request) {
  return parseInput(VisitorMessageBody, await readJsonBody(request));
}
