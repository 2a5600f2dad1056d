import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../runtime/services.ts';
import type { Asset } from '../sdkAssets.ts';
import { dashboardAssets } from './dashboardAssets.ts';

/**
 * The dashboard's policy: its one script and one stylesheet come from this origin, nothing runs
 * inline, it talks to this origin only, and nobody frames it. frame-src 'self' is for the hosted
 * checkout's live preview beside the offer form.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The shell every dashboard path answers: the script routes on the client (history API paths). */
export function dashboardHtml(assets: { js: Asset; css: Asset }): string {
  // The asset's hash in the URL: a new build is a new URL, so the files can be cached for good.
  const v = (a: Asset) => encodeURIComponent(a.etag.slice(1, -1));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Dashboard</title>
<link rel="stylesheet" href="/dashboard/assets/dashboard.css?v=${v(assets.css)}">
<script type="module" src="/dashboard/assets/dashboard.js?v=${v(assets.js)}"></script>
</head><body><div id="app"><noscript>The dashboard needs JavaScript.</noscript></div></body></html>
`;
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset, type: string) {
  const versioned = (request.query as { v?: unknown }).v === asset.etag.slice(1, -1);
  reply
    .type(type)
    .header('cache-control', versioned ? 'public, max-age=31536000, immutable' : 'no-cache')
    .header('etag', asset.etag)
    .header('vary', 'accept-encoding');
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(asset.gzip);
  return reply.send(asset.body);
}

/** `/dashboard` and every path under it (the client's routes), and its two assets. */
export async function dashboardRoutes(app: FastifyInstance, _opts: { services: Services }): Promise<void> {
  const page = async (_request: FastifyRequest, reply: FastifyReply) => {
    const assets = await dashboardAssets();
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', DASHBOARD_CSP)
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer')
      .header('cross-origin-opener-policy', 'same-origin')
      .header('permissions-policy', 'camera=(), microphone=(), geolocation=(), payment=()')
      .header('cache-control', 'no-store')
      .send(dashboardHtml(assets));
  };
  app.get('/dashboard', { schema: { hide: true } }, page);
  app.get('/dashboard/*', { schema: { hide: true } }, page);
  // Not the shell: a missing asset is a 404, not an HTML page the browser would refuse as script.
  app.get('/dashboard/assets/*', { schema: { hide: true } }, async (_request, reply) =>
    reply.code(404).send({ message: 'Not found.', code: 'not_found' }),
  );
  for (const [name, type] of [['js', 'application/javascript; charset=utf-8'], ['css', 'text/css; charset=utf-8']] as const) {
    app.get(`/dashboard/assets/dashboard.${name}`, { schema: { hide: true } }, async (request, reply) => sendAsset(request, reply, (await dashboardAssets())[name], type));
  }
}
