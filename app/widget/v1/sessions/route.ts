import { preflight, publicRoute } from "@/lib/widgets/public";
import { openSession } from "@/lib/widgets/public-api";

// POST /widget/v1/sessions — a visitor token for this page's origin (public key, optional user token)
export const POST = publicRoute(openSession);

export const OPTIONS = preflight;
