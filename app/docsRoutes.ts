import type { FastifyInstance } from 'fastify';

type OpenApiDoc = {
  info: { title: string; description?: string };
  paths?: Record<string, Record<string, { summary?: string; description?: string; security?: unknown[] }>>;
};

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Inline `code` of the OpenAPI text as <code>, the rest escaped: the descriptions are Markdown-ish. */
export const inlineMarkdown = (s: string) => escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');

type Row = { methods: string[]; path: string; auth: string; text: string };

/**
 * One row per path and description: the catch route takes every method with one description, and
 * nine identical rows read as nine routes. Methods that share a path and a description share a row.
 */
function docRows(doc: OpenApiDoc): Row[] {
  const rows: Row[] = [];
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(ops)) {
      const auth = op.security ? 'Bearer' : 'Public';
      const text = op.summary ?? op.description ?? '';
      const same = rows.find((r) => r.path === path && r.auth === auth && r.text === text);
      if (same) same.methods.push(method.toUpperCase());
      else rows.push({ methods: [method.toUpperCase()], path, auth, text });
    }
  }
  return rows;
}

const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

const STYLE = `<style>body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1f2937}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #e5e7eb;padding:.4rem .6rem;text-align:left;vertical-align:top}
.m{font-weight:600;font-family:ui-monospace,monospace}code{font-family:ui-monospace,monospace;background:#f3f4f6;padding:0 .25rem;border-radius:3px}</style>`;

/** A page headed by the document's title and description. */
const page = (doc: OpenApiDoc, body: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(doc.info.title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
${STYLE}</head>
<body><h1>${escapeHtml(doc.info.title)}</h1><p>${inlineMarkdown(doc.info.description ?? '')}</p>
${body}</body></html>`;

/** The OpenAPI document, a plain page listing every route from it (no script, no CDN), and the front page. */
export async function docsRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.get('/docs', { schema: { hide: true } }, async (_request, reply) => {
    const doc = app.swagger() as unknown as OpenApiDoc;
    const rows = docRows(doc)
      .map(
        (r) =>
          // Every method of the catch route (GET to QUERY): "ANY" says it in a word.
          `<tr><td class="m">${r.methods.length >= 7 ? 'ANY' : r.methods.join(', ')}</td><td><code>${escapeHtml(r.path)}</code></td><td>${r.auth}</td><td>${inlineMarkdown(r.text)}</td></tr>`,
      )
      .join('\n');
    const html = page(doc, `<p>Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3). <a href="/">Home</a></p>
<table><thead><tr><th>Method</th><th>Path</th><th>Auth</th><th>What it does</th></tr></thead><tbody>
${rows}
</tbody></table>`);
    return reply.type('text/html; charset=utf-8').headers(PAGE_HEADERS).send(html);
  });

  // The front page: where a person who opens the service's address goes next (a 404 here would
  // read as "the service is broken"). HTML for browsers (they ask for text/html), JSON otherwise.
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    const doc = app.swagger() as unknown as OpenApiDoc;
    const has = (url: string) => app.hasRoute({ method: 'GET', url });
    const links = {
      docs: '/docs',
      openapi: '/api/openapi.json',
      dashboard: has('/dashboard') ? '/dashboard' : null,
      sdk_example: has('/examples/sdk') ? '/examples/sdk' : null,
      health: '/healthz',
    };
    if (!/\btext\/html\b/.test(String(request.headers.accept ?? ''))) {
      return reply.header('cache-control', 'no-store').send({ name: doc.info.title, description: doc.info.description ?? '', links });
    }
    const item = (href: string | null, label: string, what: string) => (href ? `<li><a href="${href}">${label}</a>: ${what}</li>` : '');
    const html = page(doc, `<ul>
${item(links.dashboard, 'Dashboard', 'your products, offers and sales')}
${item(links.docs, 'API reference', 'every route, who may call it and what it does')}
${item(links.openapi, 'OpenAPI document', 'for code generators and API clients')}
${item(links.sdk_example, 'SDK example page', 'the browser checkout SDK on a demo offer (<code>commerce demo</code> creates it)')}
${item(links.health, 'Health', 'liveness; <a href="/readyz">/readyz</a> for readiness')}
</ul>
<p>A hosted checkout page lives at <code>/checkout/{offer}</code>; <code>commerce offer list</code> prints each offer's link.</p>
`);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').headers(PAGE_HEADERS).send(html);
  });
}
