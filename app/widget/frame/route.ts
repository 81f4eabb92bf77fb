import { db } from "@/lib/db";
import { frameHeaders, framePage } from "@/lib/widgets/browser/frame-page";
import { allowedOriginsOf, appearanceOf } from "@/lib/widgets/service";

// GET /widget/frame?key=pk_…[&preview=1] — the bubble's page, framable by the widget's origins only
// (and, with preview=1, by Guichet's own pages: the console's « Aperçu » — the frame holds no secret,
// every call it shows goes through the loader's preview session).
export async function GET(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const key = url.searchParams.get("key") ?? "";
  const preview = url.searchParams.get("preview") === "1";
  const widget = /^pk_[A-Za-z0-9_-]{10,64}$/.test(key)
    ? await db.widget.findUnique({ where: { publicKey: key } })
    : null;
  if (!widget) return new Response("Widget introuvable.", { status: 404, headers: frameHeaders([]) });
  const origins = allowedOriginsOf(widget);
  const appearance = appearanceOf(widget);
  return new Response(framePage({ origins, language: appearance.language, title: appearance.title, preview }), {
    headers: frameHeaders(origins, { preview }),
  });
}
