import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { EventsTooLargeError, StoreUnavailableError } from '../eventStore/eventStore.ts';
import { PaymentProviderError } from '../../modules/payments/paymentProvider.ts';
import { DomainError, type DomainErrorKind } from '../domain/domainError.ts';
import { SealedDataError } from '../privacy/sealing.ts';
import { commonHeaderLines, newRequestId, setCommonHeaders } from './responseHeaders.ts';
import { fieldErrors } from './validationMessages.ts';

/** Our error body: Laravel's shape plus a machine-readable code. */
export type ErrorBody = { message: string; code: string; errors?: Record<string, string[]> };

const statusOfKind: Record<DomainErrorKind, number> = {
  not_found: 404,
  conflict: 409,
  invalid: 422,
  forbidden: 403,
  gone: 410,
  payment_failed: 402,
};

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly errors?: Record<string, string[]>,
  ) {
    super(message);
  }
}

export const unauthenticated = () => new HttpError(401, 'unauthenticated', 'Unauthenticated.');
export const unauthorized = () => new HttpError(403, 'unauthorized', 'This action is unauthorized.');
export const notFound = (what: string) => new HttpError(404, 'not_found', `${what} not found.`);

/** Laravel's summary: the first error, plus "(and N more errors)". */
export function validationBody(errors: Record<string, string[]>): ErrorBody {
  const all = Object.values(errors).flat();
  const extra = all.length - 1;
  const message = extra > 0 ? `${all[0]} (and ${extra} more error${extra === 1 ? '' : 's'})` : (all[0] ?? 'The given data was invalid.');
  return { message, code: 'validation_failed', errors };
}

const fastifyErrorStatus: Record<string, [number, string, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'payload_too_large', 'The request body is too large.'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type', 'The request body must be JSON.'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'bad_request', 'The Content-Length header does not match the body.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'malformed_json', 'The request body is empty but Content-Type is application/json.'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'malformed_json', 'The request body is not valid JSON.'],
  FST_ERR_BAD_URL: [400, 'bad_request', 'The request URL is malformed.'],
  FST_ERR_MAX_PARAM_LENGTH: [414, 'uri_too_long', 'A segment of the request path is too long.'],
  FST_ERR_ASYNC_CONSTRAINT: [400, 'bad_request', 'The request could not be routed.'],
};

/**
 * What the router refuses before a route is chosen (fastify's frameworkErrors): no hook runs for
 * these, so the common headers are set here. The error's own message quotes the URL, which may
 * hold a catch-URL secret: it is neither sent nor logged.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const [status, code, message] = fastifyErrorStatus[error.code] ?? [400, 'bad_request', 'The request could not be routed.'];
  void setCommonHeaders(reply, request.id)
    .code(status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ message, code } satisfies ErrorBody));
}

export function registerErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const errors = fieldErrors(
        error.validation.map((issue) => ({
          path: issue.instancePath.replace(/^\//, '').replaceAll('/', '.') || (error.validationContext ?? 'body'),
          code: issue.keyword,
          params: issue.params as Record<string, unknown>,
          message: issue.message ?? '',
        })),
      );
      return reply.code(422).send(validationBody(errors));
    }
    if (error instanceof DomainError) {
      const status = statusOfKind[error.kind];
      const body: ErrorBody = { message: error.message, code: error.code };
      if (error.fields) body.errors = error.fields;
      return reply.code(status).send(body);
    }
    if (error instanceof StoreUnavailableError) {
      // Another process's transaction, a full or failing disk, an unreachable EventStoreDB: not
      // the request's fault, and nothing was written, so the client may send it again (with its
      // Idempotency-Key, if any). Logged as an error: each needs an operator if it lasts.
      request.log.error({ err: error }, 'store unavailable');
      return reply.code(503).header('retry-after', '1').send({ message: 'The service is busy. Try again shortly.', code: 'service_unavailable' } satisfies ErrorBody);
    }
    if (error instanceof PaymentProviderError) {
      // Stripe unreachable or refusing the call: not the request's fault, and not ours to hide.
      request.log.warn({ err: { message: error.message, code: error.providerCode } }, 'payment provider error');
      return reply.code(502).send({ message: 'The payment provider could not complete the request. Try again shortly.', code: 'payment_provider_error' } satisfies ErrorBody);
    }
    if (error instanceof EventsTooLargeError) {
      // The production store's own size limit (README): nothing was written, and a retry would meet it again.
      request.log.warn({ err: error }, 'events too large for the store');
      return reply.code(413).send({ message: 'The request is too large to record.', code: 'payload_too_large' } satisfies ErrorBody);
    }
    if (error instanceof SealedDataError) {
      // A sealed personal field of the object's log was altered or damaged: the object cannot be
      // shown as recorded, and a retry cannot mend it. Logged for an operator; the message names no data.
      request.log.error({ err: error }, 'sealed personal data unreadable');
      return reply.code(409).send({ message: 'Personal data recorded for this object cannot be read: it was altered or damaged.', code: 'personal_data_unreadable' } satisfies ErrorBody);
    }
    if (error instanceof HttpError) {
      const body: ErrorBody = { message: error.message, code: error.code };
      if (error.errors) body.errors = error.errors;
      // RFC 6750: a 401 names the scheme that would have worked, so clients know what to send.
      if (error.statusCode === 401) void reply.header('www-authenticate', 'Bearer realm="api"');
      return reply.code(error.statusCode).send(body);
    }
    const known = error.code ? fastifyErrorStatus[error.code] : undefined;
    if (known) return reply.code(known[0]).send({ message: known[2], code: known[1] } satisfies ErrorBody);
    if (error.statusCode === 429) return reply.code(429).send({ message: 'Too Many Attempts.', code: 'too_many_attempts' });
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send({ message: error.message, code: 'bad_request' } satisfies ErrorBody);
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ message: 'Server Error', code: 'server_error' } satisfies ErrorBody);
  });

  app.setNotFoundHandler((_request, reply) => {
    return reply.code(404).send({ message: 'Route not found.', code: 'route_not_found' } satisfies ErrorBody);
  });
}

/**
 * What the HTTP parser refuses before any route runs (a request past REQUEST_TIMEOUT_MS, headers
 * over the size limit, bytes that are not HTTP), answered in our error shape rather than
 * fastify's, and the connection closed, as Node does.
 */
export function answerClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  // The client is gone: nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, body]: [number, string, ErrorBody] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', { message: 'The request did not arrive in time.', code: 'request_timeout' }]
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', { message: 'The request headers are too large.', code: 'headers_too_large' }]
        : [400, 'Bad Request', { message: 'Malformed HTTP request.', code: 'bad_request' }];
  // Only the code and Node's fixed message: its parse errors carry the raw bytes read so far
  // (rawPacket), with the Authorization header, a catch URL's keys or a card number in a body.
  this.log.debug({ code: error.code, reason: error.message }, 'client error');
  if (socket.writable) {
    const json = JSON.stringify(body);
    // No request was parsed, so there is no caller's id to keep: a new one, as on every response.
    socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${Buffer.byteLength(json)}\r\nContent-Type: application/json; charset=utf-8\r\n${commonHeaderLines(newRequestId())}Connection: close\r\n\r\n${json}`);
  }
  socket.destroy(error);
}
