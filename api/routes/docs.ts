import type { FastifyInstance } from 'fastify';

type OpenApiDoc = {
  info: { title: string; description?: string };
  paths?: Record<string, Record<string, { summary?: string; description?: string; security?: unknown[] }>>;
};

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The OpenAPI document, and a plain page listing every route from it (no script, no CDN). */
export async function docsRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.get('/docs', { schema: { hide: true } }, async (_request, reply) => {
    const doc = app.swagger() as unknown as OpenApiDoc;
    const rows = Object.entries(doc.paths ?? {})
      .flatMap(([path, ops]) =>
        Object.entries(ops).map(
          ([method, op]) =>
            `<tr><td class="m">${method.toUpperCase()}</td><td><code>${escapeHtml(path)}</code></td><td>${op.security ? 'Bearer' : 'Public'}</td><td>${escapeHtml(op.summary ?? op.description ?? '')}</td></tr>`,
        ),
      )
      .join('\n');
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(doc.info.title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1f2937}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #e5e7eb;padding:.4rem .6rem;text-align:left;vertical-align:top}
.m{font-weight:600;font-family:ui-monospace,monospace}code{font-family:ui-monospace,monospace}</style></head>
<body><h1>${escapeHtml(doc.info.title)}</h1><p>${escapeHtml(doc.info.description ?? '')}</p>
<p>Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3).</p>
<table><thead><tr><th>Method</th><th>Path</th><th>Auth</th><th>What it does</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>`;
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer')
      .send(html);
  });
}
