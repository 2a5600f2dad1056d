import { METHODS } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * Teaches fastify every method Node's HTTP parser accepts (PROPFIND, PURGE, SEARCH…), which it would
 * answer 404 "Route not found."; routes registered with `all` afterwards take them all. CONNECT goes
 * to the server's 'connect' event, never to a handler.
 */
export function acceptEveryNodeMethod(app: FastifyInstance): void {
  for (const method of METHODS) {
    if (method !== 'CONNECT' && !app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });
  }
}

/** Operations an OpenAPI path item may hold (QUERY is OpenAPI 3.2's, and fastify serves it). */
const OPENAPI_OPERATIONS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'query']);

/**
 * The OpenAPI document without the methods added above: a path item with a `propfind` key is not
 * OpenAPI, and tools reading the document would refuse it. The README says the catch URL takes any.
 */
export function openApiOperationsOnly<Doc extends { paths?: object }>(doc: Doc): Doc {
  if (!doc.paths) return doc;
  const paths = Object.fromEntries(
    Object.entries(doc.paths as Record<string, Record<string, unknown>>).map(([path, item]) => [
      path,
      Object.fromEntries(Object.entries(item).filter(([key]) => OPENAPI_OPERATIONS.has(key) || !METHODS.includes(key.toUpperCase()))),
    ]),
  );
  return { ...doc, paths };
}
