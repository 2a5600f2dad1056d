import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorSchema, findOrAwaitStream, HttpError, liftBodyDeadline, notFound } from '../../../platform/http/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { bearerAccess, manageAccess, routeListing, type RouteAccess } from '../../oauth/index.ts';
import { fileStream, fileSettingsStream } from '../domain/file.ts';
import { deleteFile, updateFileSettings, uploadFile } from '../fileCommands.ts';
import { fileSettings, findFile, listDownloads, listFiles, presentDownload, presentFile } from '../fileQueries.ts';
import { DeletedFileSchema, FileDownloadSchema, FileIdParams, FileSchema, FileSettingsBody, FileSettingsSchema } from './fileSchemas.ts';

/** The largest file a seller may upload. */
export const MAX_FILE_BYTES = 512 * 1024 * 1024;
export const FILES_PER_PAGE_DEFAULT = 100;
export const FILES_PER_PAGE_MAX = 1000;

const withUploadErrors = (access: RouteAccess): RouteAccess => ({ ...access, errors: { ...access.errors, 400: ErrorSchema, 413: ErrorSchema, 415: ErrorSchema } });

export const fileRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => routes(app, services, withUploadErrors(bearerAccess));
export const fileManageRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => routes(app, services, withUploadErrors(manageAccess));

const invalidField = (field: string, message: string) => new HttpError(422, 'validation_failed', message, { [field]: [message] });
const tooLarge = () => new HttpError(413, 'file_too_large', 'A file may be up to 512 MiB.');

/** What @fastify/multipart and busboy refuse, as our errors: never a 500 for a client's malformed body. */
function uploadError(error: unknown): unknown {
  if (error instanceof HttpError) return error;
  const code = (error as { code?: unknown }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge();
  if (code === 'FST_FILES_LIMIT') return invalidField('file', 'Send one file per upload.');
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_PROTO_VIOLATION') return invalidField('file', 'Send the field `file` and at most a `purpose`.');
  const message = error instanceof Error ? error.message : '';
  if (/multipart|boundary|Unexpected end of form|Malformed|terminated early/i.test(message)) {
    return new HttpError(400, 'malformed_multipart', 'The request body is not valid multipart/form-data.');
  }
  return error;
}

/** The name a buyer's download is saved under: the last path segment, no control characters. */
function cleanFilename(name: string | undefined): string {
  const base = (name ?? '').split(/[/\\]/).at(-1) ?? '';
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 255);
  return clean === '' || clean === '.' || clean === '..' ? 'file' : clean;
}

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;
const cleanType = (type: string | undefined) => {
  const t = (type ?? '').toLowerCase().split(';')[0]!.trim();
  return MIME.test(t) ? t : 'application/octet-stream';
};

async function routes(app: Parameters<FastifyPluginAsyncZod>[0], services: Services, access: RouteAccess): Promise<void> {
  const { prefix, schema: routeSchema, errors } = access;
  const authenticate = access.onRequest(app);
  const { token, paging, page, pageSchema } = routeListing(access, services, { default: FILES_PER_PAGE_DEFAULT, max: FILES_PER_PAGE_MAX });

  // Streamed: parts are read as they arrive, the file part straight into the file store.
  await app.register(multipart, { limits: { fileSize: MAX_FILE_BYTES, files: 1, fields: 2, parts: 3, fieldSize: 1024, headerPairs: 20 } });

  /** The organization's file; deleted, another organization's or none: 404, alike. */
  const own = async (request: FastifyRequest, reply: FastifyReply, id: string, options: { deleted?: boolean } = {}) => {
    const organizationId = access.organizationOf(request);
    const doc = await findOrAwaitStream(services, reply, { stream: fileStream(id), find: () => findFile(services.readStore, organizationId, id), organizationId });
    if (!doc || (doc.deleted && !options.deleted)) throw notFound('File');
    return doc;
  };

  app.post(
    `${prefix}/files`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: 'Uploads a file (multipart/form-data, field `file`, up to 512 MiB; optional field `purpose`: `benefit`), streamed to the file store and checksummed (SHA-256).',
        querystring: z.object(token),
        response: { 201: FileSchema, ...errors },
      },
    },
    async (request, reply) => {
      if (!request.isMultipart()) throw new HttpError(415, 'unsupported_media_type', 'Send the file as multipart/form-data, in the field `file`.');
      // An authenticated upload may take the server's upload allowance (UPLOAD_TIMEOUT_MS), not REQUEST_TIMEOUT_MS.
      liftBodyDeadline(request);
      const organizationId = access.organizationOf(request);
      const ctx = access.context(services, request);
      let uploaded = null;
      let purpose: string | null = null;
      try {
        for await (const part of request.parts()) {
          if (part.type === 'field') {
            if (part.fieldname !== 'purpose') throw new HttpError(422, 'validation_failed', `Unknown field: ${part.fieldname.slice(0, 40)}.`, { [part.fieldname.slice(0, 40)]: ['Unknown field.'] });
            purpose = String(part.value);
            continue;
          }
          if (part.fieldname !== 'file') throw invalidField('file', 'Send the file in the field `file`.');
          const file = part.file;
          // busboy ends a part at the limit as if it were whole: fail it instead, so nothing is kept.
          file.once('limit', () => file.destroy(tooLarge()));
          uploaded = await uploadFile(ctx, services.files, { organizationId, filename: cleanFilename(part.filename), type: cleanType(part.mimetype), source: file }, (stored) => {
            if (stored.size === 0) throw invalidField('file', 'The file is empty.');
            if (purpose !== null && purpose !== 'benefit') throw invalidField('purpose', 'The purpose must be `benefit`.');
          });
        }
        if (purpose !== null && purpose !== 'benefit') throw invalidField('purpose', 'The purpose must be `benefit`.');
      } catch (error) {
        // Refused after the file was stored (a second file, a bad purpose after it): keep nothing.
        if (uploaded) await deleteFile(ctx, services.files, organizationId, uploaded.id);
        throw uploadError(error);
      }
      if (!uploaded) throw invalidField('file', 'Send the file in the field `file`.');
      reply.code(201);
      return presentFile({ ...uploaded, deleted: false, deleted_at: null });
    },
  );

  app.get(
    `${prefix}/files`,
    { onRequest: authenticate, schema: { ...routeSchema, summary: "The organization's files, newest first (deleted ones left out).", querystring: z.object(paging), response: { 200: pageSchema(FileSchema), ...errors } } },
    async (request) => {
      const q = request.query;
      const { items, total } = await listFiles(services.readStore, access.organizationOf(request), { skip: (q.page - 1) * q.per_page, limit: q.per_page });
      return page(request, 'files', items.map(presentFile), total, q);
    },
  );

  app.get(
    `${prefix}/files/:file`,
    { onRequest: authenticate, schema: { ...routeSchema, summary: 'A file.', params: FileIdParams, querystring: z.object(token), response: { 200: FileSchema, ...errors } } },
    async (request, reply) => presentFile(await own(request, reply, request.params.file)),
  );

  app.delete(
    `${prefix}/files/:file`,
    {
      onRequest: authenticate,
      schema: { ...routeSchema, summary: "Deletes a file: its bytes are removed and buyers' links to it stop working.", params: FileIdParams, querystring: z.object(token), response: { 200: DeletedFileSchema, ...errors } },
    },
    async (request, reply) => {
      const doc = await own(request, reply, request.params.file);
      await deleteFile(access.context(services, request), services.files, doc.organization_id, doc.id);
      return { id: doc.id, object: 'file' as const, deleted: true as const };
    },
  );

  app.get(
    `${prefix}/files/:file/downloads`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: 'Who downloaded the file (a deleted one too): per customer, how often, first and last time (and the last address, when recorded), latest first.',
        params: FileIdParams,
        querystring: z.object(paging),
        response: { 200: pageSchema(FileDownloadSchema), ...errors },
      },
    },
    async (request, reply) => {
      // The record of who downloaded outlives the file.
      const doc = await own(request, reply, request.params.file, { deleted: true });
      const q = request.query;
      const { items, total } = await listDownloads(services.readStore, doc.id, { skip: (q.page - 1) * q.per_page, limit: q.per_page });
      return page(request, `files/${doc.id}/downloads`, items.map(presentDownload), total, q);
    },
  );

  app.get(
    `${prefix}/file_settings`,
    { onRequest: authenticate, schema: { ...routeSchema, summary: "The organization's download settings.", querystring: z.object(token), response: { 200: FileSettingsSchema, ...errors } } },
    async (request, reply) => {
      const organizationId = access.organizationOf(request);
      const settings = await findOrAwaitStream(services, reply, { stream: fileSettingsStream(organizationId), find: () => fileSettings(services.readStore, organizationId), organizationId });
      return { object: 'file_settings' as const, ...settings! };
    },
  );

  app.put(
    `${prefix}/file_settings`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: "Changes the download settings: record_download_ip keeps each download's IP address (off by default; applies to downloads from now on).",
        querystring: z.object(token),
        body: FileSettingsBody,
        response: { 200: FileSettingsSchema, ...errors },
      },
    },
    async (request) => {
      const organizationId = access.organizationOf(request);
      await updateFileSettings(access.context(services, request), organizationId, request.body);
      return { object: 'file_settings' as const, ...request.body };
    },
  );
}
