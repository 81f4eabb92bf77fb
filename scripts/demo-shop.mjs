// The demo shop: a customer's page on a second local origin (http://localhost:4030)
// that embeds the demo widget's snippet, so a newcomer sees the bubble working on
// « another site ». Spawned by `npm start` with the demo; GUICHET_URL is Guichet's
// address, the public key is the one the seed wrote to data/demo-widget-key.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";

const port = Number(process.env.GUICHET_DEMO_SHOP_PORT ?? 4030);
const guichet = process.env.GUICHET_URL ?? "http://localhost:3000";
const dataDir = path.resolve(process.env.GUICHET_DATA_DIR ?? "data");
const escape = (value) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

createServer((req, res) => {
  // Read at each request: rotating the key in the console and re-seeding needs no restart.
  const key = readFileSync(path.join(dataDir, "demo-widget-key"), "utf8").trim();
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end(`<!doctype html>
<html lang="fr">
<head><meta charset="utf-8"><title>Boutique Acme — démo</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:720px;margin:40px auto;padding:0 16px;color:#1f2937}</style>
</head>
<body>
<h1>Boutique Acme</h1>
<p>Une page de démonstration servie sur une autre origine que Guichet. La bulle en bas à droite est l’agent
« Changements d’adresse » : demandez-lui de livrer le client C-1842 à Lyon, puis approuvez la demande dans
Guichet (approver@acme.test) et lisez la réponse ici.</p>
<script src="${escape(guichet)}/widget.js" data-key="${escape(key)}" async></script>
</body>
</html>`);
}).listen(port, "127.0.0.1", () => console.log(`demo shop on http://localhost:${port}`));
