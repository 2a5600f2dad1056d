import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import rangeParser from 'range-parser';
import { escapeHtml, readModelsAtHead } from '../../../platform/http/index.ts';
import { FileNotFoundError } from '../../../platform/files/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { activeFileGrant } from '../../benefits/index.ts';
import { checkDownloadLink } from '../downloadLinks.ts';
import { recordDownload } from '../fileCommands.ts';
import { FILES, type FileDoc } from '../fileProjection.ts';
import { fileSettings } from '../fileQueries.ts';

/** The refusals a buyer may meet, each a page saying what to do. */
const REFUSALS = {
  bad: [403, 'This download link is not valid', 'Open the download again from your receipt, the order page or your account: each link there is fresh.'],
  expired: [410, 'This download link has expired', 'Download links work for 15 minutes. Open the download again from your receipt, the order page or your account for a fresh link.'],
  revoked: [403, 'This download is no longer available to you', 'Your access to this file has ended (a refund, or a subscription that stopped). Contact the seller if you think this is a mistake.'],
  missing: [410, 'This file is no longer available', 'The seller removed this file. Contact the seller if you need it.'],
} as const;

function refuse(reply: FastifyReply, why: keyof typeof REFUSALS): FastifyReply {
  const [status, title, message] = REFUSALS[why];
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-robots-tag', 'noindex')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">` +
        `<title>${escapeHtml(title)}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#111}</style></head>` +
        `<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main></body></html>`,
    );
}

/** RFC 6266: a quoted ASCII fallback and the exact name in UTF-8 (RFC 8187). */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const exact = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

const one = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * The buyer's download by a signed link (downloadLinks.ts), for 15 minutes and while the grant
 * stands; resumable (ETag, Range, If-Range). The access log redacts the `signature` parameter.
 */
export async function downloadRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  app.get<{ Params: { file: string }; Querystring: Record<string, unknown> }>(
    '/downloads/:file',
    {
      // Per link rather than per address: a buyer behind a shared address is not held back by others.
      config: {
        rateLimit: {
          max: services.config.DOWNLOAD_RATE_LIMIT_PER_LINK,
          timeWindow: 60_000,
          keyGenerator: (request: { params: unknown; query: unknown }) => `download:${String((request.params as { file?: unknown }).file)}:${String((request.query as { customer?: unknown }).customer)}`,
        },
      },
      schema: {
        summary: "A buyer's download by the signed link downloadUrl makes (?customer=&expires=&signature=): 200 or 206 (Range, If-Range), 304 (If-None-Match); 403 or 410 with a page when the link is bad or expired, or the grant revoked.",
      },
    },
    async (request, reply) => {
      const fileId = request.params.file;
      const customerId = one(request.query.customer);
      const expires = one(request.query.expires);
      const signature = one(request.query.signature);
      if (!customerId || !signature || !expires || !/^[0-9]{1,12}$/.test(expires) || customerId.length > 100 || signature.length > 100 || fileId.length > 100) return refuse(reply, 'bad');
      const check = checkDownloadLink(services, { fileId, customerId, expires: Number(expires), signature });
      if (check !== 'valid') return refuse(reply, check);

      const file = await services.readStore.get<FileDoc>(FILES, fileId);
      if (!file || file.deleted) return refuse(reply, 'missing');
      const grantQuery = { organizationId: file.organization_id, customerId, fileId };
      // A link minted on the thank-you page may outrun the grant's read model by a moment.
      const granted = (await activeFileGrant(services.readStore, grantQuery)) ?? ((await readModelsAtHead(services)) ? await activeFileGrant(services.readStore, grantQuery) : null);
      if (!granted) return refuse(reply, 'revoked');

      const etag = `"${file.sha256}"`;
      reply
        .header('cache-control', 'private, no-cache')
        .header('referrer-policy', 'no-referrer')
        .header('x-robots-tag', 'noindex')
        // A seller's file is served from our origin: whatever its type, a browser that opens it
        // instead of saving it runs nothing of it here.
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('accept-ranges', 'bytes')
        .header('etag', etag)
        .header('content-disposition', contentDisposition(file.filename))
        .type(file.type);
      if (ifNoneMatch(one(request.headers['if-none-match']), etag)) return reply.code(304).send();

      const range = wantedRange(one(request.headers.range), one(request.headers['if-range']), etag, file.size);
      if (range === 'unsatisfiable') return reply.code(416).header('content-range', `bytes */${file.size}`).type('text/plain').send('');

      if (request.method === 'GET' && (range === null || range.start === 0)) {
        // Counted once per download, not per resumed piece.
        const settings = await fileSettings(services.readStore, file.organization_id);
        const ip = settings.record_download_ip ? request.ip : null;
        const occurredAt = Math.floor(services.clock() / 1000);
        await recordDownload(
          {
            store: services.store,
            metadata: { correlation_id: request.id, actor: { type: 'customer', id: customerId }, organization_id: file.organization_id, occurred_at: occurredAt },
          },
          { file_id: file.id, organization_id: file.organization_id, customer_id: customerId, downloaded_at: occurredAt, ip },
        );
      }

      let body;
      try {
        // HEAD: the headers alone (fastify would read a stream it is given to its end).
        body = request.method === 'HEAD' ? Readable.from([]) : await services.files.open(file.id, range ?? {});
      } catch (error) {
        if (error instanceof FileNotFoundError) return refuse(reply, 'missing');
        throw error;
      }
      if (range) {
        reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${file.size}`).header('content-length', range.end - range.start + 1);
      } else {
        reply.header('content-length', file.size);
      }
      return reply.send(body);
    },
  );
}

/** RFC 9110 13.1.2: weak comparison; `*` matches any current file. */
function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * The one byte range to send, or null for the whole file: a Range of another unit, malformed, or
 * of several ranges is answered whole (RFC 9110 allows ignoring it), and so is one whose If-Range
 * does not name this file's ETag exactly (a date never does: no Last-Modified is sent).
 */
function wantedRange(header: string | undefined, ifRange: string | undefined, etag: string, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header || size === 0) return null;
  if (ifRange !== undefined && ifRange.trim() !== etag) return null;
  const parsed = rangeParser(size, header, { combine: true });
  if (parsed === -1) return 'unsatisfiable';
  if (parsed === -2 || parsed.type !== 'bytes' || parsed.length !== 1) return null;
  return { start: parsed[0]!.start, end: parsed[0]!.end };
}
