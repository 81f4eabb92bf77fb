import { FRAME_JS } from "@/lib/widgets/browser/frame-script";

// GET /widget/frame.js — the bubble's script, loaded by the frame page only.
export function GET(): Response {
  return new Response(FRAME_JS, {
    headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=3600" },
  });
}
