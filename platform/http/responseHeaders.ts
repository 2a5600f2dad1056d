import type { FastifyReply } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { customAlphabet } from 'nanoid';

/**
 * Request ids: a random prefix per process and a counter. Unique across processes and restarts
 * without drawing random bytes per request (ids name requests; they guard nothing).
 */
const requestIdPrefix = `req_${customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 10)()}`;
let requestCount = 0;
export const newRequestId = () => `${requestIdPrefix}${(++requestCount).toString(36)}`;
const INCOMING_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** The caller's request id when it looks like one, so traces join up across services; else a new one. */
export function requestIdFor(headers: IncomingHttpHeaders): string {
  const incoming = headers['x-request-id'];
  return typeof incoming === 'string' && INCOMING_REQUEST_ID.test(incoming) ? incoming : newRequestId();
}

/**
 * The headers every response carries, whoever answers: the route's hooks, the router refusing a
 * URL before any hook runs, or the HTTP parser refusing the bytes (HTML adds its own policy in
 * securityHeaders.ts). Two calls rather than an object: this runs on every request.
 */
export function setCommonHeaders(reply: FastifyReply, requestId: string): FastifyReply {
  return reply.header('x-request-id', requestId).header('x-content-type-options', 'nosniff');
}

/** The same headers as raw HTTP lines, for an answer written straight to the socket. */
export function commonHeaderLines(requestId: string): string {
  return `X-Request-Id: ${requestId}\r\nX-Content-Type-Options: nosniff\r\n`;
}
