import type { FastifyRequest, FastifySerializerCompiler } from 'fastify';
import { serializerCompiler, type FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { receiveWebhook } from '../receiveWebhook.ts';
import { commandContext, ErrorSchema, exceedsJsonDepth, HttpError, jsonTooDeep, notFound, RouteKey, validateHeadersInPlace, validationBody } from '../../../platform/http/index.ts';
import { acceptEveryNodeMethod } from './anyHttpMethod.ts';

/** The payload key that holds a body that is not a JSON object (an array, a string, plain text, XML…). */
export const RAW_BODY_KEY = '_body';

/** Headers worth keeping with a received webhook; all others are dropped. */
const RECORDED_HEADERS = new Set([
  'content-type',
  'content-length',
  'user-agent',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
  'forwarded',
  'cf-connecting-ip',
  'true-client-ip',
  'x-api-key',
  'authorization',
  'idempotency-key',
  'webhook-id',
  'webhook-timestamp',
  'x-request-id',
]);
const SIGNATURE_HEADER = /signature|^x-hub-|^x-webhook-/;
const MASK = '********';

/** Header values kept for the record; the credentials in authorization and x-api-key are masked. */
export function recordedHeaders(headers: FastifyRequest['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined || !(RECORDED_HEADERS.has(name) || SIGNATURE_HEADER.test(name))) continue;
    const value = Array.isArray(raw) ? raw.join(', ') : String(raw);
    if (name === 'x-api-key') out[name] = MASK;
    else if (name === 'authorization') {
      const scheme = /^([A-Za-z][A-Za-z0-9-]*) /.exec(value)?.[1];
      out[name] = scheme ? `${scheme} ${MASK}` : MASK;
    } else out[name] = value.slice(0, 1024);
  }
  return out;
}

const wrap = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { [RAW_BODY_KEY]: value };

/**
 * The body as the parsers below leave it (an object, or undefined): its fields are never refused, since
 * every request is recorded and each action checks what it uses (domain/enrolment.ts). The shape only,
 * as a full parse would copy every key; in preValidation, as fastify refuses a body schema on GET and HEAD.
 */
const CatchBody = z.custom<Record<string, unknown>>((body) => body !== null && typeof body === 'object' && !Array.isArray(body)).optional();

const DedupeHeader = z.string().min(1).max(255).optional();
const Answer = z.object({ success: z.literal(true), message: z.string(), workflow_id: z.number().int().nullable() });

/**
 * A 200 is built from literals and the store's integer position (typed against Answer when compiling),
 * so JSON.stringify alone writes it, sparing the default serializer's two zod passes; errors keep the
 * default. Generic in the schema type because fastify types a route's compiler with the whole schema.
 */
const answerSerializer = <T>(route: Parameters<FastifySerializerCompiler<T>>[0]) =>
  route.httpStatus === '200'
    ? (answer: z.output<typeof Answer>) => JSON.stringify(answer)
    : serializerCompiler(route as Parameters<typeof serializerCompiler>[0]);

export const catchRoute: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  // In this scope only: any content type is accepted (senders are not ours to choose).
  app.removeAllContentTypeParsers();
  const parseJson = (_req: unknown, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
    const text = String(body).trim();
    if (text === '') return done(null, {});
    if (exceedsJsonDepth(text)) return done(jsonTooDeep(), undefined);
    try {
      done(null, wrap(JSON.parse(text)));
    } catch {
      done(new HttpError(400, 'malformed_json', 'The request body is not valid JSON.'), undefined);
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson);
  app.addContentTypeParser(/^application\/[a-z0-9.+-]*\+json$/, { parseAs: 'string' }, parseJson);
  // Flat by construction (a repeated field becomes an array of strings), so no depth to check.
  // Gathered in a Map: on a plain object a field named constructor or toString found what
  // Object.prototype holds there (recorded as [null, "c"]), and one named __proto__ set the prototype.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    const fields = new Map<string, string | string[]>();
    for (const [k, v] of new URLSearchParams(body as string)) {
      const prev = fields.get(k);
      fields.set(k, prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v]);
    }
    done(null, Object.fromEntries(fields));
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => {
    const text = (body as Buffer).toString('utf8');
    done(null, text === '' ? {} : { [RAW_BODY_KEY]: text });
  });

  // The spec: a catch URL takes any method.
  acceptEveryNodeMethod(app);
  app.all(
    '/hooks/catch/:sequence/:trigger',
    {
      config: {
        secretPath: true,
        rateLimit: {
          max: services.config.CATCH_RATE_LIMIT_MAX,
          timeWindow: services.config.CATCH_RATE_LIMIT_WINDOW_MS,
          keyGenerator: (request: FastifyRequest) => `catch:${(request.params as { trigger?: string }).trigger ?? ''}`,
        },
      },
      serializerCompiler: answerSerializer,
      // The dedupe headers are checked; every header stays in request.headers for recordedHeaders.
      validatorCompiler: validateHeadersInPlace,
      // A callback hook: an async one costs a promise per request.
      preValidation: (request, _reply, done) => {
        if (CatchBody.safeParse(request.body).success) return done();
        const body = validationBody({ body: ['The body must be a JSON object.'] });
        done(new HttpError(422, body.code, body.message, body.errors));
      },
      schema: {
        summary: 'Inbound automation webhook: records the request and starts (or skips) a workflow.',
        // Any string: a key that cannot exist answers 404 like one that does not.
        params: z.object({ sequence: z.string().max(200), trigger: z.string().max(200) }),
        querystring: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
        headers: z.looseObject({ 'idempotency-key': DedupeHeader, 'webhook-id': DedupeHeader }),
        response: { 200: Answer, 400: ErrorSchema, 404: ErrorSchema, 413: ErrorSchema, 422: ErrorSchema, 429: ErrorSchema },
      },
    },
    async (request) => {
      const { sequence, trigger } = request.params;
      if (!RouteKey.safeParse(sequence).success || !RouteKey.safeParse(trigger).success) throw notFound('Webhook');
      const answer = await receiveWebhook(services.store, (org) => commandContext(services, request, org).metadata, {
        sequenceKey: sequence,
        triggerKey: trigger,
        method: request.method,
        payload: (request.body as Record<string, unknown> | undefined) ?? {},
        query: request.query,
        headers: recordedHeaders(request.headers),
        dedupeKey: request.headers['idempotency-key'] ?? request.headers['webhook-id'] ?? null,
      });
      if (!answer.found) throw notFound('Webhook');
      return answer.workflowId === null
        ? { success: true as const, message: 'Webhook received but trigger was skipped', workflow_id: null }
        : { success: true as const, message: 'Workflow started', workflow_id: answer.workflowId };
    },
  );
};
