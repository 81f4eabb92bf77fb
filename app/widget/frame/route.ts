import { db } from "@/lib/db";
import { frameHeaders, framePage } from "@/lib/widgets/browser/frame-page";
import { allowedOriginsOf, appearanceOf } from "@/lib/widgets/service";

// GET /widget/frame?key=pk_… — the bubble's page, framable by the widget's origins only
export async function GET(request: Request): Promise<Response> {
  const key = new URL(request.url).searchParams.get("key") ?? "";
  const widget = /^pk_[A-Za-z0-9_-]{10,64}$/.test(key)
    ? await db.widget.findUnique({ where: { publicKey: key } })
    : null;
  if (!widget) return new Response("Widget introuvable.", { status: 404, headers: frameHeaders([]) });
  const origins = allowedOriginsOf(widget);
  const appearance = appearanceOf(widget);
  return new Response(framePage({ origins, language: appearance.language, title: appearance.title }), {
    headers: frameHeaders(origins),
  });
}
