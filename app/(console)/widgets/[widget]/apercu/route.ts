import { previewPage } from "@/lib/widgets/preview-page";

// GET /widgets/{widget}/apercu — the real bubble on a page of Guichet's own, for the console's « Aperçu »
// (framed by the widget's console card; lib/widgets/preview.ts says how it reaches the bubble's API).
export const GET = previewPage;
